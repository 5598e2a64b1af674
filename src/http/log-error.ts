import type { ServiceError } from '../errors';
import type { Logger } from '../log';
import type { Res } from './exchange';
import { requestLogger } from './request-id';

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
