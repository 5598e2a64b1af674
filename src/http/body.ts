import bodyParser from 'body-parser';
import type http from 'node:http';
import { errors, ServiceError } from '../errors';

/**
 * Reads a request body of at most `limit` bytes, counted after inflation (gzip, deflate, br):
 * reading stops at the limit, so a compression bomb is never inflated whole.
 */
export function readBody(limit: number): (req: http.IncomingMessage, res: http.ServerResponse) => Promise<Buffer> {
  const parse = bodyParser.raw({ type: () => true, limit, inflate: true });
  return (req, res) =>
    new Promise((resolve, reject) => {
      parse(req, res, (err?: unknown) => {
        if (err) return reject(bodyError(err, limit));
        const body = (req as { body?: unknown }).body;
        resolve(Buffer.isBuffer(body) ? body : Buffer.alloc(0));
      });
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
