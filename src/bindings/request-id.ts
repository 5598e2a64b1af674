import crypto from 'node:crypto';
import type express from 'express';
import type { Response } from 'express';
import type { ServiceError } from '../errors';
import type { Logger } from '../log';

/** An incoming X-Request-Id is kept only when it is a short token that is safe to log and echo. */
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Mounted first: every response (results, faults, error documents, pages, WSDLs, 404, 405,
 * 413) carries `X-Request-Id`, and `res.locals.logger` is a child logger bound to that id, so
 * what a client is told (a code and a message) can be matched with the detail in the log.
 */
export function requestId(logger: Logger): express.RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
    res.locals.requestId = id;
    res.locals.logger = logger.child({ requestId: id });
    res.setHeader('X-Request-Id', id);
    next();
  };
}

/** The request's logger (bound to its id) when the middleware ran, else the fallback. */
export function requestLogger(res: Response, fallback?: Logger): Logger | undefined {
  return (res.locals.logger as Logger | undefined) ?? fallback;
}

/**
 * Logs an error answer under the request id: the service's own faults at error level with the
 * original error (stack included) that the client never sees, anything else that was mapped from
 * a foreign error at warn level, plain caller errors not at all.
 */
export function logServiceError(res: Response, e: ServiceError, binding: string, fallback?: Logger): void {
  const log = requestLogger(res, fallback);
  if (!log) return;
  const cause = (e as { cause?: unknown }).cause;
  if (e.code === 'InternalError' || e.code === 'ServiceUnavailable') log.error({ err: cause ?? e, code: e.code }, `${binding} request failed`);
  else if (cause !== undefined) log.warn({ err: cause, code: e.code }, `${binding} request refused`);
}
