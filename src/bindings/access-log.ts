import type { Logger } from '../log';
import type { RequestRecord } from '../metrics';
import { pathOf, type Req, type Res } from './exchange';

export type BindingName = 'soap11' | 'soap12' | 'http-get' | 'http-post' | 'docs' | 'other';

/**
 * Run for every request, after the request id: one JSON line when its response has finished (or
 * the connection closed before that), with the request id, path, operation, binding, outcome
 * ('OK' or the ServiceError code), HTTP status, duration and DevID. Only what the bindings put in
 * res.locals is logged: never a parameter, so never a DevKey.
 */
export function accessLog(logger: Logger, onRecord?: (r: RequestRecord) => void): (req: Req, res: Res) => void {
  const logging = logger.isLevelEnabled('info');
  return (req, res) => {
    const start = process.hrtime.bigint();
    const path = pathOf(req);
    const endpoint = path.length > 200 ? `${path.slice(0, 200)}...` : path;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const durationMs = Number(process.hrtime.bigint() - start) / 1e6;
      const locals = res.locals;
      const status = res.statusCode;
      const outcome = typeof locals.outcome === 'string'
        ? locals.outcome
        : res.writableFinished ? (status < 400 ? 'OK' : `HTTP${status}`) : 'Aborted';
      const record: RequestRecord = {
        operation: typeof locals.operation === 'string' ? locals.operation : 'none',
        binding: typeof locals.binding === 'string' ? locals.binding : 'other',
        outcome,
        durationMs,
      };
      onRecord?.(record);
      if (!logging) return;
      logger.info({
        requestId: locals.requestId,
        endpoint,
        operation: locals.operation,
        binding: record.binding,
        outcome,
        status,
        durationMs: Math.round(durationMs * 1000) / 1000,
        devId: typeof locals.devId === 'number' ? locals.devId : undefined,
      }, 'request');
    };
    res.once('finish', finish);
    res.once('close', finish);
  };
}
