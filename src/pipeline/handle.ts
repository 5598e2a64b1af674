import { errors, toServiceError } from '../errors';
import { findOperation } from '../operations/catalog';
import { sendAnswer } from '../http/answer';
import type { Req, Res } from '../http/exchange';
import { clientAddress } from '../http/client-address';
import type { Endpoint } from '../wsdl/endpoints';
import { OVERLOAD_RETRY_AFTER_S } from './overload-report';
import { DatabaseWaitTooLong } from './db-queue';
import { logServiceError } from '../http/log-error';
import { authenticate, cached, decode } from './steps';
import type { Call, EndpointBinding } from './binding';
import type { OperationName, OperationParams } from '../generated/records';
import type { ServiceContext } from './service-context';

export type CallHandler = (req: Req, res: Res, operation: string | undefined) => Promise<void>;

/**
 * The pipeline of an operation call, the same for every binding: admission (before the body is
 * read), read (the binding), authenticate, decode, then the cached answer (or: wait for a database
 * connection in the DbQueue, run the operation, render it with the binding) sent as the request negotiates (http/answer.ts: compressed, or 304 to a
 * conditional GET), and on any failure the binding's error answer. The access log reads what is
 * put in res.locals.
 */
export function callHandler(endpoint: Endpoint, binding: EndpointBinding, ctx: ServiceContext): CallHandler {
  const trustProxy = ctx.config.SVAPI_TRUST_PROXY;
  return async (req, res, operation) => {
    const locals = res.locals;
    let name = binding.nameOf(req, res);
    if (name) locals.binding = name;
    const release = ctx.limit.admit(res);
    if (!release) {
      if (operation !== undefined) locals.operation = findOperation(endpoint.name, operation)?.name;
      locals.outcome = 'ServiceUnavailable';
      binding.writeError(res, errors.overloaded(OVERLOAD_RETRY_AFTER_S), name);
      return;
    }
    try {
      const call = await binding.read(req, res, operation);
      name = locals.binding = call.name;
      locals.operation = call.op.name;
      locals.devId = await authenticate(ctx.credentials, call, clientAddress(req, trustProxy));
      const params = decode(call);
      const answer = await cached(ctx.results, call.name, call.op, params, async () => binding.render(call, await run(ctx, call, params, locals.startedAt)));
      // Only a GET is conditional (HTTP GET): a POST's answer has no ETag and is never 304.
      sendAnswer(req, res, binding.contentType(call), answer, req.method === 'GET');
    } catch (e) {
      // A refusal for overload is counted and logged as an overload (OverloadReport), not as a failure.
      const refused = e instanceof DatabaseWaitTooLong;
      const error = refused ? errors.overloaded(OVERLOAD_RETRY_AFTER_S) : toServiceError(e);
      // read may have named the call from its body before refusing it (binding.ts).
      name = locals.binding ?? name;
      if (!refused) logServiceError(res, error, name ?? 'http', ctx.logger);
      locals.outcome = error.code;
      binding.writeError(res, error, name);
    } finally {
      release();
    }
  };
}

/** The operation, once one of the database connections is this call's (DbQueue; its wait counts from the request's start). */
async function run(ctx: ServiceContext, call: Call, params: OperationParams[OperationName], arrived: number | undefined) {
  const entered = ctx.dbQueue.enter(arrived);
  const release = entered instanceof Promise ? await entered : entered;
  try {
    return await call.op.run(ctx, params);
  } finally {
    release();
  }
}
