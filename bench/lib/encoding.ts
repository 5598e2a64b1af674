/**
 * Answers as bytes on the wire: a client that sees the raw body (fetch() would inflate it), the
 * Content-Encodings the benchmark understands, and what gzip and brotli make of an answer.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import type { Request } from './cases';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as received: still compressed when the service compressed it. */
  body: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** Sends `request` (with `headers` added) and returns the raw answer. Nothing is added or decoded. */
export function rawFetch(origin: string, request: Request, headers: Record<string, string> = {}): Promise<RawResponse> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname, port: url.port, agent, method: request.method, path: request.path, headers: { ...request.headers, ...headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(request.body);
  });
}

export const ENCODINGS = ['gzip', 'br'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** The body with its Content-Encoding undone; throws on an encoding the benchmark does not know. */
export function decodeBody(body: Buffer, contentEncoding: string | undefined): Buffer {
  const coding = (contentEncoding ?? 'identity').trim().toLowerCase();
  switch (coding) {
    case 'identity':
    case '':
      return body;
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body);
    case 'br':
      return zlib.brotliDecompressSync(body);
    case 'deflate':
      return zlib.inflateSync(body);
    default:
      throw new Error(`unknown Content-Encoding ${coding}`);
  }
}

/** True when a body, once decoded as `contentEncoding`, is exactly `plain`. */
export function inflatesTo(plain: Buffer, contentEncoding: string): (body: Buffer) => boolean {
  return (body) => {
    try {
      return decodeBody(body, contentEncoding).equals(plain);
    } catch {
      return false;
    }
  };
}

export interface Sizes {
  /** Mean bytes of the answers as they are. */
  plain: number;
  /** Mean bytes after gzip (zlib's default level, 6) and brotli (node's default quality, 11). */
  gzip: number;
  br: number;
  /** Answers the compressed sizes were taken over. */
  compressedOver: number;
}

/** Sizes of `bodies`: plain over all of them, compressed over the first `compressAtMost`. */
export function compressedSizes(bodies: Buffer[], compressAtMost = 10): Sizes {
  const mean = (xs: number[]) => (xs.length ? Math.round(xs.reduce((a, b) => a + b, 0) / xs.length) : 0);
  const some = bodies.slice(0, compressAtMost);
  return {
    plain: mean(bodies.map((b) => b.length)),
    gzip: mean(some.map((b) => zlib.gzipSync(b).length)),
    br: mean(some.map((b) => zlib.brotliCompressSync(b).length)),
    compressedOver: some.length,
  };
}
