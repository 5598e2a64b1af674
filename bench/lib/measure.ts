import autocannon from 'autocannon';
import { backendPids, cpuSeconds, peakRss, resetPeak, rssSampler } from './proc';
import type { Request } from './cases';

export interface Target {
  /** Base URL, e.g. http://127.0.0.1:1234 (loopback only). */
  origin: string;
  request: Request;
  /** The body every response must have (a correct answer fetched before the run). */
  expected: string;
}

export interface MeasureOptions {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

export interface Measurement {
  requests: number;
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** Responses that were not 2xx. */
  non2xx: number;
  /** Connection errors and time-outs. */
  errors: number;
  /** Responses whose body was not the expected one (autocannon checks every body, so non-2xx count here too). */
  mismatches: number;
  /** 2xx responses with a wrong body (mismatches beyond the non-2xx ones). */
  wrong2xx: number;
  peakRssMB: number;
  /** How the peak was taken: VmHWM after a reset (exact), or VmRSS polled every 100 ms. */
  peakRssSource: 'VmHWM' | 'VmRSS-poll';
  /** CPU used during the measured part, as % of one core. */
  cpuPct: { server: number; postgres: number | null; loadGenerator: number };
  /**
   * CPU milliseconds per request of the serving process and of the Postgres backends: steadier
   * than rps on a busy machine, where the process does not get a whole core.
   */
  cpuMsPerRequest: { server: number; postgres: number | null };
  /** The serving process's CPU microseconds per request, unrounded (for ratios). */
  serverCpuUsPerRequest: number;
  bytesPerResponse: number;
  flagged: boolean;
}

/**
 * autocannon decodes every body chunk as UTF-8 and appends it to a string. On a body with any
 * non-ASCII character (the sample's "Camp Ñandú") that made the load generator, not the service,
 * the bottleneck: against a raw server sending our 78 KB GetMonsterGlobals bytes it managed about
 * 1,850 rps at 100% CPU, 10,300 rps when those bytes were ASCII. Kept as the raw chunks instead,
 * a body costs nothing to receive and can be compared byte for byte. autocannon is pinned; this
 * fails loudly if its queue changes shape.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a module autocannon does not export
const queue = (require('autocannon/lib/pipelinedRequestsQueue') as { prototype: { addBody?: unknown; peek?: unknown } }).prototype;
if (typeof queue.addBody !== 'function' || typeof queue.peek !== 'function') {
  throw new Error('autocannon/lib/pipelinedRequestsQueue changed: bench/lib/measure.ts must be updated');
}
queue.addBody = function addBody(this: { peek(): { body: string | Buffer[] } | undefined }, data: Buffer) {
  const pending = this.peek();
  if (!pending) return;
  if (typeof pending.body === 'string') pending.body = [data];
  else pending.body.push(data);
};

/** True when the raw chunks of a response body are exactly `expected`'s UTF-8 bytes. */
export function bodyVerifier(expected: string): (body: string | Buffer[]) => boolean {
  const bytes = Buffer.from(expected);
  return (body) => {
    if (typeof body === 'string') return body === expected;
    let offset = 0;
    for (const chunk of body) {
      if (!bytes.subarray(offset, offset + chunk.length).equals(chunk)) return false;
      offset += chunk.length;
    }
    return offset === bytes.length;
  };
}

function cannon(target: Target, connections: number, seconds: number): Promise<autocannon.Result> {
  const { request } = target;
  return autocannon({
    url: `${target.origin}${request.path}`,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections,
    duration: seconds,
    timeout: 10,
    verifyBody: bodyVerifier(target.expected),
  } as autocannon.Options);
}

/**
 * Warm-up (discarded), then the measured run, with the server's memory and CPU watched.
 * `aroundRun` is called right before the measured run and returns what to call right after it.
 */
export async function measure(
  target: Target,
  serverPid: number,
  opts: MeasureOptions,
  database?: string,
  aroundRun?: () => Promise<() => Promise<void>>,
): Promise<Measurement> {
  if (opts.warmupSeconds > 0) await cannon(target, opts.connections, opts.warmupSeconds);
  const afterRun = await aroundRun?.();
  const exactPeak = resetPeak(serverPid);
  const sampler = rssSampler(serverPid);
  const backends = database ? backendPids(database) : [];
  const pgCpu = () => backends.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const cpu0 = { server: cpuSeconds(serverPid), pg: pgCpu(), me: process.cpuUsage(), at: process.hrtime.bigint() };
  const result = await cannon(target, opts.connections, opts.durationSeconds);
  const wall = Number(process.hrtime.bigint() - cpu0.at) / 1e9;
  const me = process.cpuUsage(cpu0.me);
  await afterRun?.();
  const polled = sampler.stop();
  const peak = exactPeak ? Math.max(peakRss(serverPid), polled) : polled;
  const pct = (seconds: number) => Math.round((seconds / wall) * 1000) / 10;
  const requests = result.requests.total;
  const serverCpu = cpuSeconds(serverPid) - cpu0.server;
  const m: Measurement = {
    requests,
    rps: Math.round((requests / result.duration) * 10) / 10,
    latencyMs: {
      p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max, mean: result.latency.mean,
    },
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    mismatches: result.mismatches,
    wrong2xx: Math.max(0, result.mismatches - result.non2xx),
    peakRssMB: Math.round((peak / 1048576) * 10) / 10,
    peakRssSource: exactPeak ? 'VmHWM' : 'VmRSS-poll',
    cpuPct: {
      server: pct(serverCpu),
      postgres: database ? pct(pgCpu() - cpu0.pg) : null,
      loadGenerator: pct((me.user + me.system) / 1e6),
    },
    cpuMsPerRequest: { server: 0, postgres: null },
    serverCpuUsPerRequest: requests ? (serverCpu * 1e6) / requests : 0,
    bytesPerResponse: Buffer.byteLength(target.expected),
    flagged: false,
  };
  const perRequest = (p: number) => (requests ? Math.round(((p * 10 * result.duration) / requests) * 100) / 100 : 0);
  m.cpuMsPerRequest = { server: perRequest(m.cpuPct.server), postgres: m.cpuPct.postgres === null ? null : perRequest(m.cpuPct.postgres) };
  m.flagged = m.non2xx > 0 || m.errors > 0 || m.mismatches > 0 || requests === 0;
  return m;
}
