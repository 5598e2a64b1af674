import { performance } from 'node:perf_hooks';
import type { Logger } from '../log';
import { pathOf, type Req, type Res } from './exchange';

/** What a request comes to, for the metrics (metrics.ts counts and times it). */
export interface RequestRecord {
  operation: string;
  binding: string;
  outcome: string;
  durationMs: number;
}

/**
 * Run for every request, after the request id: one JSON line when its response has finished (or
 * the connection closed before that), with the request id, path, operation, binding, outcome
 * ('OK' or the ServiceError code), HTTP status, duration and DevID. Only what the bindings put in
 * res.locals is logged: never a parameter, so never a DevKey.
 */
export function accessLog(logger: Logger, bindingNames: readonly string[], onRecord?: (r: RequestRecord) => void): (req: Req, res: Res) => void {
  // The binding names a log line or metric can carry: the registry's, pages' and the rest.
  const labels: ReadonlySet<string> = new Set([...bindingNames, 'docs', 'other']);
  const logging = logger.isLevelEnabled('info');
  // One listener for every response ('close' comes once: after 'finish', or when the connection
  // went first), reading what it needs from res.locals: no closure made per request.
  function finished(this: Res) {
    const locals = this.locals;
    const durationMs = performance.now() - locals.startedAt!;
    const status = this.statusCode;
    const outcome = typeof locals.outcome === 'string'
      ? locals.outcome
      : this.writableFinished ? (status < 400 ? 'OK' : `HTTP${status}`) : 'Aborted';
    const record: RequestRecord = {
      operation: typeof locals.operation === 'string' ? locals.operation : 'none',
      binding: locals.binding !== undefined && labels.has(locals.binding) ? locals.binding : 'other',
      outcome,
      durationMs,
    };
    onRecord?.(record);
    if (!logging) return;
    const path = locals.path!;
    logger.info({
      requestId: locals.requestId,
      endpoint: path.length > 200 ? `${path.slice(0, 200)}...` : path,
      operation: locals.operation,
      binding: record.binding,
      outcome,
      status,
      durationMs: Math.round(durationMs * 1000) / 1000,
      devId: typeof locals.devId === 'number' ? locals.devId : undefined,
    }, 'request');
  }
  return (req, res) => {
    res.locals.startedAt = performance.now();
    // Taken now: a handler may rewrite req.url.
    res.locals.path = pathOf(req);
    // 'close' comes once per response: `on` spares the wrapper `once` makes.
    res.on('close', finished);
  };
}
