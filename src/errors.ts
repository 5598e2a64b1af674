/** The error codes of CONTRACT §7. */
type ErrorCode =
  | 'MissingParameter' | 'InvalidParameter' | 'AuthenticationFailed' | 'NotFound' | 'RateLimited'
  | 'UnknownOperation' | 'MethodNotAllowed' | 'BadRequest' | 'VersionMismatch' | 'UnsupportedMediaType'
  | 'RequestTooLarge' | 'ServiceUnavailable' | 'InternalError';

/** The one error type: every failure a client can see is one of these. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly parameter?: string,
    /** Extra response headers (Allow, Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    // The caller's faults are answered, never logged with a stack (http/log-error.ts): capturing
    // one cost about 10 us of the 15 us such an error took, and a client past its rate limit, or
    // generated for another namespace, can send thousands a second.
    const stackFrames = Error.stackTraceLimit;
    if (party(code) !== 'service') Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackFrames;
  }
}

export const AUTH_FAILED_MESSAGE = 'The DevID and DevKey were not accepted.';

export const errors = {
  missing: (p: string) => new ServiceError('MissingParameter', `Parameter ${p} is required.`, p),
  invalid: (p: string, why: string) => new ServiceError('InvalidParameter', `Parameter ${p} ${why}.`, p),
  auth: () => new ServiceError('AuthenticationFailed', AUTH_FAILED_MESSAGE),
  notFound: (what: string) => new ServiceError('NotFound', `${what} was not found.`),
  rateLimited: (retryAfterSeconds: number) =>
    new ServiceError('RateLimited', 'Too many requests; retry later.', undefined, { 'Retry-After': String(retryAfterSeconds) }),
  unknownOperation: (name: string) => new ServiceError('UnknownOperation', `This endpoint has no operation ${name}.`),
  /** The Body's element is in another namespace than the configured one (a client generated for another namespace). */
  foreignNamespace: (name: string, theirs: string, ours: string) => new ServiceError('UnknownOperation',
    `The operation ${name} is ${theirs ? `in namespace '${theirs}'` : 'in no namespace'}; this service's namespace is '${ours}'.`),
  methodNotAllowed: (allow: string[]) =>
    new ServiceError('MethodNotAllowed', 'This method is not allowed here.', undefined, { Allow: allow.join(', ') }),
  badRequest: (why: string) => new ServiceError('BadRequest', why),
  versionMismatch: () => new ServiceError('VersionMismatch', 'The envelope namespace does not match the SOAP version of the Content-Type.'),
  unsupportedMediaType: (type: string) => new ServiceError('UnsupportedMediaType', `Content-Type ${type || '(none)'} is not accepted here.`),
  tooLarge: (limit: number) => new ServiceError('RequestTooLarge', `The request body is larger than ${limit} bytes.`),
  unavailable: () => new ServiceError('ServiceUnavailable', 'The service is temporarily unavailable; retry later.'),
  overloaded: (retryAfterSeconds: number) =>
    new ServiceError('ServiceUnavailable', 'The service is busy; retry later.', undefined, { 'Retry-After': String(retryAfterSeconds) }),
  internal: () => new ServiceError('InternalError', 'The service failed to answer this request.'),
};

type Party = 'caller' | 'service' | 'version';

const party = (code: ErrorCode): Party =>
  code === 'VersionMismatch' ? 'version'
    : code === 'ServiceUnavailable' || code === 'InternalError' ? 'service'
      : 'caller';

/** Statuses that hold on every binding (CONTRACT §7). */
const FIXED_STATUS: Partial<Record<ErrorCode, number>> = { RequestTooLarge: 413, UnsupportedMediaType: 415, MethodNotAllowed: 405 };

const HTTP_STATUS: Record<ErrorCode, number> = {
  MissingParameter: 400, InvalidParameter: 400, BadRequest: 400, VersionMismatch: 400,
  AuthenticationFailed: 403, NotFound: 404, UnknownOperation: 404, MethodNotAllowed: 405,
  RequestTooLarge: 413, UnsupportedMediaType: 415, RateLimited: 429,
  InternalError: 500, ServiceUnavailable: 503,
};

export type Binding = 'soap11' | 'soap12' | 'http';

/** HTTP status of an error on a binding. */
export function statusFor(e: ServiceError, binding: Binding): number {
  if (binding === 'http') return HTTP_STATUS[e.code];
  const fixed = FIXED_STATUS[e.code];
  if (fixed) return fixed;
  if (binding === 'soap12' && party(e.code) === 'caller') return 400;
  return 500;
}

/** SOAP fault code (local name, without prefix) of an error. */
export function faultCodeFor(e: ServiceError, binding: 'soap11' | 'soap12'): string {
  const p = party(e.code);
  if (p === 'version') return 'VersionMismatch';
  if (binding === 'soap11') return p === 'caller' ? 'Client' : 'Server';
  return p === 'caller' ? 'Sender' : 'Receiver';
}

/**
 * Anything thrown becomes a ServiceError; what is not one already is logged, never shown: the
 * original stays on `cause` for the log (the pipeline logs it with the request
 * id), the client sees only the code and its fixed message.
 */
export function toServiceError(e: unknown): ServiceError {
  if (e instanceof ServiceError) return e;
  const mapped = isDatabaseUnavailable(e) ? errors.unavailable()
    : isUnreadableRequest(e) ? errors.badRequest('The request could not be read.')
      : errors.internal();
  Object.defineProperty(mapped, 'cause', { value: e, enumerable: false });
  return mapped;
}

/** Express/router errors about the request itself (a path that does not percent-decode). */
function isUnreadableRequest(e: unknown): boolean {
  const err = e as { status?: unknown; statusCode?: unknown } | null;
  return Boolean(err) && typeof err === 'object' && (err!.status === 400 || err!.statusCode === 400);
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004', '53300', '57014']);

function isDatabaseUnavailable(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  const err = e as { code?: string; name?: string; message?: string };
  if (err.code && UNAVAILABLE_CODES.has(err.code)) return true;
  // knex: pool acquisition timed out (no connection could be made in time).
  if (err.name === 'KnexTimeoutError') return true;
  // pg: the connection closed under a statement, could not be made in time ('timeout expired'),
  // or the client-side statement bound ran out ('Query read timeout').
  return /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|^timeout expired$|is not queryable|Query read timeout/i.test(err.message ?? '');
}
