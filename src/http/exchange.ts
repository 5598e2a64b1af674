import type http from 'node:http';

/**
 * The request and response every binding handler takes: plain Node ones, so a handler runs the
 * same behind the front router (no Express) and behind an Express route. `locals` carries what the
 * access log reports (operation, binding, outcome, DevID) and the request id.
 */
export type Req = http.IncomingMessage;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Express types res.locals this way
export type Res = http.ServerResponse & { locals: Record<string, any> };

/** The path part of a request target (before `?`), as sent. */
export function pathOf(req: Req): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** The query string (everything after the first `?`: a later `?` is part of a value). */
export function queryOf(req: Req): string {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

/** Sends a whole answer with these headers. */
export function sendBody(res: Res, status: number, contentType: string, body: string | Buffer, headers?: Record<string, string>): void {
  res.statusCode = status;
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', contentType);
  res.end(body);
}
