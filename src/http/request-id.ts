import crypto from 'node:crypto';
import type { Logger } from '../log';
import type { Req, Res } from './exchange';

/** An incoming X-Request-Id is kept only when it is a short token that is safe to log and echo. */
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Run first for every request: every response (results, faults, error documents, pages, WSDLs,
 * 404, 405, 413) carries `X-Request-Id`, written with its other headers (exchange.ts
 * `headerList`), so what a client is told (a code and a message) can be matched with the detail
 * in the log.
 */
export function assignRequestId(req: Req, res: Res, logger: Logger): void {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
  res.locals.requestId = id;
  res.locals.log = logger;
}

/** A logger bound to the request's id (made only when something is logged), else the fallback. */
export function requestLogger(res: Res, fallback?: Logger): Logger | undefined {
  const log = res.locals.log ?? fallback;
  const id = res.locals.requestId;
  return id && log ? log.child({ requestId: id }) : log;
}
