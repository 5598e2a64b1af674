import { errors, toServiceError } from '../errors';
import { findOperation } from '../operations/catalog';
import { Answer, sendAnswer } from '../http/answer';
import type { Req, Res } from '../http/exchange';
import { clientAddress } from '../http/client-address';
import type { Endpoint } from '../wsdl/endpoints';
import { OVERLOAD_RETRY_AFTER_S } from './overload-report';
import { CallerGone, DatabaseWaitTooLong } from './db-queue';
import { logServiceError } from '../http/log-error';
import { authenticate, cached, decode } from './steps';
import type { Call, EndpointBinding } from './binding';
import type { OperationName, OperationParams } from '../generated/records';
import type { OperationResult } from '../operations/catalog';
import type { ServiceContext } from './service-context';

/** The overload refusal every refused call is answered with (one error, not one per call). */
const OVERLOADED = errors.overloaded(OVERLOAD_RETRY_AFTER_S);

export type CallHandler = (req: Req, res: Res, operation: string | undefined) => void;

/**
 * The pipeline of an operation call, the same for every binding: an early retry's wait
 * (EarlyRetries), a slice of a turn (callSlices), admission (before the body is read), read (the
 * binding), authenticate, decode, then the cached answer (or: wait for a database connection in
 * the DbQueue, run the operation, render it with the binding) sent as the request negotiates
 * (http/answer.ts: compressed, or 304 to a conditional GET), and on any failure the binding's
 * error answer. The access log reads what is put in res.locals.
 */
export function callHandler(endpoint: Endpoint, binding: EndpointBinding, ctx: ServiceContext): CallHandler {
  const trustProxy = ctx.config.SVAPI_TRUST_PROXY;
  // With no answer cache every call reads the database: one the DbQueue would refuse is refused
  // before its request is read and its credentials checked (under overload, most calls are).
  const everyCallReads = ctx.results.enabled ? undefined : ctx.dbQueue;

  const taken = async (req: Req, res: Res, operation: string | undefined, name: string | undefined, waitedMs: number): Promise<void> => {
    const locals = res.locals;
    if (!ctx.limit.admit(res, everyCallReads, waitedMs)) {
      if (operation !== undefined) locals.operation = findOperation(endpoint.name, operation)?.name;
      locals.outcome = 'ServiceUnavailable';
      ctx.earlyRetries.refused(req.socket);
      binding.writeError(res, OVERLOADED, name);
      return;
    }
    try {
      const read = binding.read(req, res, operation);
      const call = read instanceof Promise ? await read : read;
      name = locals.binding = call.name;
      locals.operation = call.op.name;
      const devId = authenticate(ctx.credentials, call, clientAddress(req, trustProxy));
      locals.devId = typeof devId === 'number' ? devId : await devId;
      const params = decode(call);
      const made = answered(ctx, binding, call, params, res);
      const answer = made instanceof Answer ? made : await made;
      // Only a GET is conditional (HTTP GET): a POST's answer has no ETag and is never 304.
      sendAnswer(req, res, binding.contentType(call), answer, req.method === 'GET');
    } catch (e) {
      // Gone before it got a database connection: nothing to answer (the access log has it as Aborted).
      if (e instanceof CallerGone) {
        locals.outcome = 'Aborted';
        return;
      }
      // A refusal for overload is counted and logged as an overload (OverloadReport), not as a failure.
      const refused = e instanceof DatabaseWaitTooLong;
      const error = refused ? OVERLOADED : toServiceError(e);
      // read may have named the call from its body before refusing it (binding.ts).
      name = locals.binding ?? name;
      if (refused) ctx.earlyRetries.refused(req.socket);
      else logServiceError(res, error, name ?? 'http', ctx.logger);
      locals.outcome = error.code;
      binding.writeError(res, error, name);
    } finally {
      ctx.limit.release();
    }
  };

  // Taken up when it has not closed meanwhile: at once, or in a slice of a turn (callSlices) after
  // an early retry's wait, with the answer cache off (every call needs the database), or while
  // calls wait for a database connection. Then hundreds come due, or are read, in one turn
  // (refused together, they retry together; a thousand clients connect at once), and taken up at
  // once they held the loop for up to 320 ms. A flood of cached answers is taken up at once: put
  // off in slices, its calls waited longer and fewer were answered (docs/performance.md,
  // twenty-eighth pass).
  return (req, res, operation) => {
    const locals = res.locals;
    locals.arrivedAt = ctx.arrivals.arrival(locals.startedAt!);
    const name = binding.nameOf(req, res);
    if (name) locals.binding = name;
    const early = ctx.earlyRetries.wait(req.socket);
    if (!early && !everyCallReads && ctx.dbQueue.waiting === 0) {
      void taken(req, res, operation, name, 0);
      return;
    }
    const take = (waitedMs: number) => {
      if (!res.destroyed) void taken(req, res, operation, name, waitedMs);
    };
    if (early) void early.then(() => ctx.callSlices.post(take));
    else ctx.callSlices.post(take);
  };
}

/**
 * The answer: at once when it is cached, else through a promise. Calls of one cache key share one
 * read: when the caller whose read it was has gone, one still connected makes it again.
 */
function answered(ctx: ServiceContext, binding: EndpointBinding, call: Call, params: OperationParams[OperationName], res: Res): Answer | Promise<Answer> {
  const answer = cached(ctx.results, call.name, call.op, params, () => run(ctx, call, params, res, (records) => binding.render(call, records)));
  if (answer instanceof Answer) return answer;
  return answer.catch((e: unknown) => {
    if (!(e instanceof CallerGone) || res.destroyed) throw e;
    return answered(ctx, binding, call, params, res);
  });
}

/**
 * The operation's answer, rendered from its records, once one of the database connections is this
 * call's (DbQueue: its wait counts from the request's start, and it leaves the queue when its
 * client closes). The connection's slot is held until the answer is rendered (in a slice of a
 * turn, TurnSlices), so that answers waiting for the CPU count as the database queue's load. Not
 * rendered when the call is already past its deadline and the queue stands.
 */
async function run<A>(ctx: ServiceContext, call: Call, params: OperationParams[OperationName], res: Res, render: (records: OperationResult) => A): Promise<A> {
  const arrived = res.locals.arrivedAt;
  const release = await ctx.dbQueue.enter(arrived, res);
  try {
    const records = await call.op.run(ctx, params);
    return await ctx.renderSlices.run(() => {
      if (ctx.dbQueue.lateForAnswer(arrived)) throw ctx.dbQueue.refusal();
      return render(records);
    });
  } finally {
    release();
  }
}
