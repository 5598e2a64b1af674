import zlib from 'node:zlib';
import { preferredCoding, type Coding } from './accept-encoding';
import { headerList, sendBody, type Req, type Res } from './exchange';
import { clientHasTag } from './if-none-match';
import { bodyHash } from './entity-tag';
import { endInTurn } from './turn-writes';

/** A body as sent: small ones as text (sent in one write with the headers), large ones as bytes. */
export type Body = string | Buffer;

/** Answers shorter than this (bytes) are sent as they are: compressing them gains too little. */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Node sends a string body in one write together with the headers, but a Buffer body in a second
 * chunk (writev); a large string would be encoded again for every request, so it is kept as bytes.
 */
const STRING_BODY_MAX = 16 * 1024;

/**
 * A body from its consecutive parts: joined as text when short, else written as UTF-8 bytes part
 * by part. One string of a whole long answer (a rope of thousands of pieces) is flattened before
 * it is encoded, into two bytes a character as soon as one name has a character beyond Latin-1:
 * on the 80 KB GetMonsterGlobals(100) answer that flattening cost three times the writing of the
 * records; a record at a time, only its own part is flattened, and the bytes are made once.
 */
export function bodyOf(parts: readonly string[]): Body {
  const n = parts.length;
  let chars = 0;
  for (let i = 0; i < n; i++) chars += parts[i].length;
  if (chars <= STRING_BODY_MAX) return parts.join('');
  const lengths = new Array<number>(n);
  let bytes = 0;
  for (let i = 0; i < n; i++) bytes += lengths[i] = Buffer.byteLength(parts[i]);
  const body = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (let i = 0; i < n; i++) at += body.write(parts[i], at, lengths[i]);
  return body;
}

const brotli = (quality: number): zlib.BrotliOptions => ({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality } });
/** A compression setting: the options of each coding, and what ends the ETag of a form made with them. */
const setting = (gzipLevel: number, brotliQuality: number) => ({
  gzip: { options: { level: gzipLevel }, tag: `-gzip${gzipLevel}"` },
  br: { options: brotli(brotliQuality), tag: `-br${brotliQuality}"` },
});
type Setting = ReturnType<typeof setting>;
/**
 * Measured on the 79 KB GetMonsterGlobals(100) answer (CPU per answer): gzip level 6 0.4 ms,
 * brotli quality 4 0.3 ms for an answer made for one request; for one kept with a cached answer,
 * made once per data version, gzip 9 and brotli 6 (0.5 ms each, 5-10% smaller; brotli 7 and up
 * cost 3 ms and more). Synchronous: the thread pool's hand-over cost more CPU than it saved.
 */
const PER_REQUEST = setting(6, 4);
const KEPT = setting(9, 6);

function compress(body: Body, coding: Coding, setting: Setting): Buffer {
  return coding === 'br' ? zlib.brotliCompressSync(body, setting.br.options) : zlib.gzipSync(body, setting.gzip.options);
}

/**
 * A complete answer with what HTTP derives from its bytes: a strong entity tag (the data version
 * the answer was read at, where known, and a hash of the bytes (entity-tag.ts): every process gives the same
 * answer the same tag, a load changes the tags of the answers read after it, and one tag is
 * always one byte sequence) and its compressed forms, each with a tag of its own (the hash and the setting).
 * An answer that is kept (the answer cache) makes each compressed form once, when it is first
 * asked for, and keeps it; any other is compressed for the request that asks, with a cheaper
 * setting.
 */
export class Answer {
  readonly body: Body;
  /** The body's length in bytes. */
  readonly bytes: number;
  readonly compressible: boolean;
  private tag: string | undefined;
  private gzip: Buffer | undefined;
  private br: Buffer | undefined;
  private grew: (() => void) | undefined;

  /** `dataVersion`: the version of the data the answer was read at, when known (it goes into the ETag). */
  constructor(body: Body, private readonly dataVersion?: number) {
    this.body = typeof body !== 'string' || body.length <= STRING_BODY_MAX ? body : Buffer.from(body);
    this.bytes = typeof this.body === 'string' ? Buffer.byteLength(this.body) : this.body.length;
    this.compressible = this.bytes >= COMPRESS_MIN_BYTES;
  }

  /**
   * The strong entity tag of the answer as sent in `coding` (undefined: as it is). A compressed
   * form's tag names the setting it is made with: the same tag is always the same bytes.
   */
  etag(coding?: Coding): string {
    const tag = (this.tag ??= `"${this.dataVersion === undefined ? '' : `v${this.dataVersion}-`}${bodyHash(this.body)}"`);
    return coding === undefined ? tag : tag.slice(0, -1) + (this.grew ? KEPT : PER_REQUEST)[coding].tag;
  }

  /** The body compressed with `coding`. */
  encoded(coding: Coding): Buffer {
    const made = coding === 'br' ? this.br : this.gzip;
    if (made) return made;
    if (!this.grew) return compress(this.body, coding, PER_REQUEST);
    const form = compress(this.body, coding, KEPT);
    if (coding === 'br') this.br = form;
    else this.gzip = form;
    this.grew();
    return form;
  }

  /** Keeps the compressed forms from now on; `grew` is told when one is added (its size counted). */
  keep(grew: () => void): void {
    this.grew = grew;
  }

  /** The memory it holds, roughly: a string counted at two bytes a character, the compressed forms, the tag. */
  get heapSize(): number {
    const body = typeof this.body === 'string' ? this.body.length * 2 : this.body.length;
    return body + (this.gzip?.length ?? 0) + (this.br?.length ?? 0) + 64;
  }
}

/**
 * Sends `answer` with status 200: compressed when it is long enough and the request's
 * Accept-Encoding takes br or gzip (then with `Vary: Accept-Encoding`, whichever coding is sent),
 * and when `validate` (a GET) with its ETag, answered 304 without a body when the request's
 * If-None-Match names that tag.
 */
export function sendAnswer(req: Req, res: Res, contentType: string, answer: Answer, validate: boolean, headers?: Record<string, string>): void {
  const list = headerList(res);
  let coding: Coding | undefined;
  if (answer.compressible) {
    list.push('Vary', 'Accept-Encoding');
    coding = preferredCoding(req.headers['accept-encoding']);
  }
  if (validate) {
    const etag = answer.etag(coding);
    list.push('ETag', etag);
    if (clientHasTag(req.headers, etag)) {
      res.writeHead(304, list);
      endInTurn(res);
      return;
    }
  }
  if (coding === undefined) return sendBody(res, 200, contentType, answer.body, headers, list);
  list.push('Content-Encoding', coding);
  sendBody(res, 200, contentType, answer.encoded(coding), headers, list);
}
