import crypto from 'node:crypto';
import type { ServiceError } from '../errors';
import type { Logger } from '../log';
import type { Req, Res } from './exchange';

/** An incoming X-Request-Id is kept only when it is a short token that is safe to log and echo. */
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Run first for every request: every response (results, faults, error documents, pages, WSDLs,
 * 404, 405, 413) carries `X-Request-Id`, so what a client is told (a code and a message) can be
 * matched with the detail in the log.
 */
export function assignRequestId(req: Req, res: Res, logger: Logger): void {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
  res.locals.requestId = id;
  res.locals.log = logger;
  res.setHeader('X-Request-Id', id);
}

/** A logger bound to the request's id (made only when something is logged), else the fallback. */
export function requestLogger(res: Res, fallback?: Logger): Logger | undefined {
  const log = (res.locals.log as Logger | undefined) ?? fallback;
  const id = res.locals.requestId as string | undefined;
  return id && log ? log.child({ requestId: id }) : log;
}

/**
 * Logs an error answer under the request id: the service's own faults at error level with the
 * original error (stack included) that the client never sees, anything else that was mapped from
 * a foreign error at warn level, plain caller errors not at all.
 */
export function logServiceError(res: Res, e: ServiceError, binding: string, fallback?: Logger): void {
  const cause = (e as { cause?: unknown }).cause;
  const internal = e.code === 'InternalError' || e.code === 'ServiceUnavailable';
  if (!internal && cause === undefined) return;
  const log = requestLogger(res, fallback);
  if (!log) return;
  if (internal) log.error({ err: cause ?? e, code: e.code }, `${binding} request failed`);
  else log.warn({ err: cause, code: e.code }, `${binding} request refused`);
}
