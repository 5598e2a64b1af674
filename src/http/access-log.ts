import { performance } from 'node:perf_hooks';
import { isoTimeOfMs, LOG_BASE, type LineSink } from '../log';
import { pathOf, type Req, type Res } from './exchange';

/** What a request comes to, for the metrics (metrics.ts counts and times it). */
export interface RequestRecord {
  operation: string;
  binding: string;
  outcome: string;
  durationMs: number;
}

/** What one access-log line says besides its time; an absent field is left out, as pino leaves it. */
export interface AccessFields {
  requestId: string | undefined;
  endpoint: string;
  operation: string | undefined;
  binding: string;
  outcome: string;
  status: number;
  /** Rounded to the microsecond. */
  durationMs: number;
  devId: number | undefined;
}

// Only `"`, `\` and control characters need escaping in a JSON string; a request's path and
// id come from the request line's bytes (Latin-1), never a lone surrogate. A string that needs
// none (nearly all) goes into the line as it is.
function inJson(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c === 34 || c === 92) return JSON.stringify(s).slice(1, -1);
  }
  return s;
}
/**
 * A duration rounded to the microsecond (`Math.round(ms * 1000) / 1000`, as the access log gives
 * it) as JSON writes that number, from its whole microseconds: the double's own conversion to text
 * took a fifth of the line's time. Anything outside the plain range goes through that conversion.
 */
export function durationText(ms: number): string {
  const us = Math.round(ms * 1000);
  if (!(us >= 0 && us < 1e15)) return String(us / 1000);
  const whole = Math.floor(us / 1000);
  let fraction = us - whole * 1000;
  if (fraction === 0) return String(whole);
  // 1..999 thousandths without their trailing zeros: 0.5, not 0.500.
  let digits = 3;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  const text = String(fraction);
  return `${whole}.${'00'.slice(0, digits - text.length)}${text}`;
}

// What follows the time on every line: the logger's base (createLogger's), as pino writes it.
const AFTER_TIME = `",${JSON.stringify(LOG_BASE).slice(1, -1)}`;

/**
 * The access log's line at `isoTime`: the bytes pino writes for `logger.info(fields, 'request')`
 * from createLogger (test/access-log-line.test.ts compares them), made from the fixed fields at
 * once, as fastify's serializers are compiled from a schema. pino's generic line (a lookup of
 * every key in its serializer tables, its escaping loop) cost a cached answer 5-6 us of its 50-55
 * (docs/performance.md, issue 18, sixteenth pass).
 */
export function accessLine(isoTime: string, f: AccessFields): string {
  return `{"level":30,"time":"${isoTime}${AFTER_TIME}${f.requestId === undefined ? '' : `,"requestId":"${inJson(f.requestId)}"`}`
    + `,"endpoint":"${inJson(f.endpoint)}"${f.operation === undefined ? '' : `,"operation":"${inJson(f.operation)}"`}`
    + `,"binding":"${inJson(f.binding)}","outcome":"${inJson(f.outcome)}","status":${f.status},"durationMs":${durationText(f.durationMs)}`
    + `${f.devId === undefined ? '' : `,"devId":${f.devId}`},"msg":"request"}\n`;
}

/**
 * Run for every request, after the request id: one JSON line to `lines` (none: no access log)
 * when its response has finished (or the connection closed before that), with the request id,
 * path, operation, binding, outcome ('OK' or the ServiceError code), HTTP status, duration and
 * DevID. Only what the bindings put in res.locals is logged: never a parameter, so never a DevKey.
 */
export function accessLog(lines: LineSink | undefined, bindingNames: readonly string[], onRecord?: (r: RequestRecord) => void): (req: Req, res: Res) => void {
  // The binding names a log line or metric can carry: the registry's, pages' and the rest.
  const labels: ReadonlySet<string> = new Set([...bindingNames, 'docs', 'other']);
  const time = isoTimeOfMs();
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
    if (!lines) return;
    const path = locals.path!;
    lines.write(accessLine(time(), {
      requestId: locals.requestId,
      endpoint: path.length > 200 ? `${path.slice(0, 200)}...` : path,
      operation: locals.operation,
      binding: record.binding,
      outcome,
      status,
      durationMs: Math.round(durationMs * 1000) / 1000,
      devId: typeof locals.devId === 'number' ? locals.devId : undefined,
    }));
  }
  return (req, res) => {
    res.locals.startedAt = performance.now();
    // Taken now: a handler may rewrite req.url.
    res.locals.path = pathOf(req);
    // 'close' comes once per response: `on` spares the wrapper `once` makes.
    res.on('close', finished);
  };
}
