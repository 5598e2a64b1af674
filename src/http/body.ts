import bodyParser from 'body-parser';
import type http from 'node:http';
import { errors, ServiceError } from '../errors';

/**
 * Reads a request body of at most `limit` bytes, counted after inflation (gzip, deflate, br):
 * reading stops at the limit, so a compression bomb is never inflated whole. A body sent as it
 * is (no Content-Encoding, nearly every request) is read by readPlain; body-parser inflates the rest.
 */
export function readBody(limit: number): (req: http.IncomingMessage, res: http.ServerResponse) => Promise<Buffer> {
  const parse = bodyParser.raw({ type: () => true, limit, inflate: true });
  const inflated = (req: http.IncomingMessage, res: http.ServerResponse) =>
    new Promise<Buffer>((resolve, reject) => {
      parse(req, res, (err?: unknown) => {
        if (err) return reject(bodyError(err, limit));
        const body = (req as { body?: unknown }).body;
        resolve(Buffer.isBuffer(body) ? body : Buffer.alloc(0));
      });
    });
  // body-parser's test: an empty Content-Encoding is none, and the coding is compared as it is sent.
  return (req, res) => ((req.headers['content-encoding'] || 'identity').toLowerCase() === 'identity' ? readPlain(req, limit) : inflated(req, res));
}

/**
 * A body sent as it is, as body-parser reads it (a body over the limit, declared or counted, is
 * read to its end and dropped, then refused), without its per-request machinery: an async
 * resource, five listeners added and removed, a charset and a Content-Encoding parsed again.
 * That was 13-20% of the CPU of a cached SOAP answer (docs/performance.md, issue 18).
 */
function readPlain(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    let over = declared > limit;
    let size = 0;
    let ended = false;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', () => {
      ended = true;
      if (over) reject(errors.tooLarge(limit));
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    });
    const unread = () => {
      if (!ended) reject(errors.badRequest('The request body could not be read.'));
    };
    req.on('error', unread);
    req.on('close', unread);
  });
}

function bodyError(err: unknown, limit: number): ServiceError {
  const e = err as { type?: string; status?: number };
  if (e.type === 'entity.too.large' || e.status === 413) return errors.tooLarge(limit);
  if (e.type === 'encoding.unsupported' || e.status === 415) return errors.unsupportedMediaType('with that Content-Encoding');
  return errors.badRequest('The request body could not be read.');
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes a body in its declared charset (UTF-8 when none); anything undecodable is BadRequest. */
export function decodeBody(body: Buffer, charset: string | undefined): string {
  let decoder = UTF8;
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    try {
      decoder = new TextDecoder(charset, { fatal: true });
    } catch {
      throw errors.unsupportedMediaType(`with charset ${charset}`);
    }
  }
  try {
    return decoder.decode(body).replace(/^\uFEFF/, '');
  } catch {
    throw errors.badRequest(`The request body is not valid ${charset ?? 'utf-8'}.`);
  }
}
