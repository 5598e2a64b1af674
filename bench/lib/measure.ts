import autocannon from 'autocannon';
import { cpuSeconds, peakRss, processTree, resetPeak, rssSampler } from './proc';
import type { Request } from './cases';

/** A request and the answer every response to it must be (a correct answer fetched before the run). */
export interface Sample {
  request: Request;
  /** The exact body: text (compared as its UTF-8 bytes) or bytes. */
  expected: string | Buffer;
  /**
   * For answers whose bytes may differ from one response to the next while meaning the same (a
   * compressed one): a body that is not `expected` byte for byte passes when this says so.
   */
  equivalent?: (body: Buffer) => boolean;
}

/**
 * Where to send the load: one request sent every time (`request` and `expected`), or `samples`,
 * from which every request picks one at random; each response is checked against the answer for
 * its own request.
 */
export type Target = { origin: string } & ({ request: Request; expected: string } | { samples: Sample[] });

export const samplesOf = (t: Target): Sample[] => ('samples' in t ? t.samples : [{ request: t.request, expected: t.expected }]);

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
  /** Responses by status other than 200 (a 503 is the service refusing the load), e.g. {"503": 1200}. */
  otherStatuses: Record<string, number>;
  /** Connection errors and time-outs. */
  errors: number;
  /** Responses whose body was not the expected one (autocannon checks every body, so non-2xx count here too). */
  mismatches: number;
  /** 2xx responses with a wrong body (mismatches beyond the non-2xx ones). */
  wrong2xx: number;
  /** The highest peak resident set of one process of the server (the primary or a worker). */
  peakRssMB: number;
  /** How the peak was taken: VmHWM after a reset (exact), or VmRSS polled every 100 ms. */
  peakRssSource: 'VmHWM' | 'VmRSS-poll';
  /** CPU used during the measured part, as % of one core (the server: every process of it). */
  cpuPct: { server: number; postgres: number | null; loadGenerator: number };
  /**
   * CPU milliseconds per request of the serving process and of the Postgres backends: steadier
   * than rps on a busy machine, where the process does not get a whole core.
   */
  cpuMsPerRequest: { server: number; postgres: number | null };
  /** The serving process's CPU microseconds per request, unrounded (for ratios). */
  serverCpuUsPerRequest: number;
  /** The expected body's size (the mean over a target's samples). */
  bytesPerResponse: number;
  /** Bytes received per response, headers included (what went over the wire). */
  wireBytesPerResponse: number;
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
const queue = (require('autocannon/lib/pipelinedRequestsQueue') as { prototype: Record<string, unknown> }).prototype;
if (typeof queue.insertRequest !== 'function' || typeof queue.addBody !== 'function' || typeof queue.peek !== 'function') {
  throw new Error('autocannon/lib/pipelinedRequestsQueue changed: bench/lib/measure.ts must be updated');
}

/** A response body as its raw chunks, with the bytes of the request it answers. */
export type ReceivedBody = Buffer[] & { sent?: Buffer };
type Pending = { body: string | ReceivedBody };
type Queue = { pendingRequests: Pending[]; peek(): Pending | undefined };

const insertRequest = queue.insertRequest as (this: Queue, req: { requestBuffer?: Buffer } | undefined) => void;
queue.insertRequest = function insert(this: Queue, req: { requestBuffer?: Buffer } | undefined) {
  insertRequest.call(this, req);
  const pending = this.pendingRequests[this.pendingRequests.length - 1];
  if (!pending || typeof pending.body !== 'string') throw new Error('autocannon\'s request queue changed: bench/lib/measure.ts must be updated');
  // The request is written right after this (autocannon's Client#_doRequest): these are its bytes.
  pending.body = Object.assign([] as Buffer[], { sent: req?.requestBuffer });
};
queue.addBody = function addBody(this: Queue, data: Buffer) {
  const pending = this.peek();
  if (!pending) return;
  if (typeof pending.body === 'string') pending.body = [data];
  else pending.body.push(data);
};

/** True when the raw chunks of a response body are exactly `expected`'s bytes (UTF-8 for text). */
export function bodyVerifier(expected: string | Buffer): (body: string | Buffer[]) => boolean {
  const bytes = Buffer.isBuffer(expected) ? expected : Buffer.from(expected);
  return (body) => {
    if (typeof body === 'string') return Buffer.from(body).equals(bytes);
    let offset = 0;
    for (const chunk of body) {
      if (!bytes.subarray(offset, offset + chunk.length).equals(chunk)) return false;
      offset += chunk.length;
    }
    return offset === bytes.length;
  };
}

/** A request's identity as autocannon writes it: its request line without the version, then its body. */
export function requestKey(method: string, path: string, body: string | Buffer | undefined): string {
  return `${method} ${path}\n${Buffer.from(body ?? '').toString('latin1')}`;
}

/** The identity (see requestKey) of the raw bytes of a request autocannon sent. */
export function sentKey(sent: Buffer): string {
  const text = sent.toString('latin1');
  const line = text.slice(0, text.indexOf('\r\n')).replace(/ HTTP\/1\.[01]$/, '');
  const bodyAt = text.indexOf('\r\n\r\n');
  return `${line}\n${bodyAt < 0 ? '' : text.slice(bodyAt + 4)}`;
}

/**
 * The check of every response: the body must be the answer of the sample whose request it
 * answers (found by the request's bytes when there are several), or `equivalent` to it.
 */
export function samplesVerifier(samples: Sample[]): (body: string | ReceivedBody) => boolean {
  const checks = samples.map((s) => {
    const exact = bodyVerifier(s.expected);
    const { equivalent } = s;
    return equivalent
      ? (body: string | Buffer[]) => exact(body) || equivalent(typeof body === 'string' ? Buffer.from(body) : Buffer.concat(body))
      : exact;
  });
  if (samples.length === 1) return checks[0];
  const byKey = new Map(samples.map((s, i) => [requestKey(s.request.method, s.request.path, s.request.body), checks[i]]));
  if (byKey.size !== samples.length) throw new Error('two samples have the same request');
  return (body) => {
    const sent = typeof body === 'string' ? undefined : body.sent;
    const check = sent && byKey.get(sentKey(sent));
    return check ? check(body) : false;
  };
}

function cannon(target: Target, connections: number, seconds: number): Promise<autocannon.Result> {
  const samples = samplesOf(target);
  const first = samples[0].request;
  const pick = () => samples[Math.floor(Math.random() * samples.length)].request;
  return autocannon({
    url: `${target.origin}${first.path}`,
    method: first.method,
    headers: first.headers,
    body: first.body,
    // Several samples: each request is one of them, at random (autocannon rebuilds it every time).
    ...(samples.length > 1
      ? { requests: [{ setupRequest: (req: object) => { const r = pick(); return { ...req, method: r.method, path: r.path, headers: { ...r.headers }, body: r.body ?? '' }; } }] }
      : {}),
    connections,
    duration: seconds,
    timeout: 10,
    verifyBody: samplesVerifier(samples),
  } as autocannon.Options);
}

/**
 * Warm-up (discarded), then the measured run, with the server's memory and CPU watched: those of
 * `serverPid` and every process under it (a cluster's workers), found after the warm-up.
 * `aroundRun` is called right before the measured run and returns what to call right after it.
 */
export async function measure(
  target: Target,
  serverPid: number,
  opts: MeasureOptions,
  /** The Postgres backends serving the server (their CPU is counted); none: not counted. */
  backends?: () => Promise<number[]>,
  aroundRun?: () => Promise<() => Promise<void>>,
): Promise<Measurement> {
  if (opts.warmupSeconds > 0) await cannon(target, opts.connections, opts.warmupSeconds);
  const afterRun = await aroundRun?.();
  const serverPids = processTree(serverPid);
  const exactPeak = serverPids.map(resetPeak).every(Boolean);
  const samplers = serverPids.map((pid) => rssSampler(pid));
  const pgPids = backends ? await backends() : [];
  const pgCpu = () => pgPids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const serverCpuNow = () => serverPids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const cpu0 = { server: serverCpuNow(), pg: pgCpu(), me: process.cpuUsage(), at: process.hrtime.bigint() };
  const result = await cannon(target, opts.connections, opts.durationSeconds);
  const wall = Number(process.hrtime.bigint() - cpu0.at) / 1e9;
  const me = process.cpuUsage(cpu0.me);
  await afterRun?.();
  const peak = Math.max(...serverPids.map((pid, i) => {
    const polled = samplers[i].stop();
    try {
      return exactPeak ? Math.max(peakRss(pid), polled) : polled;
    } catch {
      return polled; // gone meanwhile
    }
  }));
  const pct = (seconds: number) => Math.round((seconds / wall) * 1000) / 10;
  const requests = result.requests.total;
  const serverCpu = serverCpuNow() - cpu0.server;
  const m: Measurement = {
    requests,
    rps: Math.round((requests / result.duration) * 10) / 10,
    latencyMs: {
      p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max, mean: result.latency.mean,
    },
    non2xx: result.non2xx,
    otherStatuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {})
      .filter(([code, stat]) => code !== '200' && (stat?.count ?? 0) > 0).map(([code, stat]) => [code, stat!.count!])),
    errors: result.errors + result.timeouts,
    mismatches: result.mismatches,
    wrong2xx: Math.max(0, result.mismatches - result.non2xx),
    peakRssMB: Math.round((peak / 1048576) * 10) / 10,
    peakRssSource: exactPeak ? 'VmHWM' : 'VmRSS-poll',
    cpuPct: {
      server: pct(serverCpu),
      postgres: backends ? pct(pgCpu() - cpu0.pg) : null,
      loadGenerator: pct((me.user + me.system) / 1e6),
    },
    cpuMsPerRequest: { server: 0, postgres: null },
    serverCpuUsPerRequest: requests ? (serverCpu * 1e6) / requests : 0,
    bytesPerResponse: Math.round(samplesOf(target).reduce((n, s) => n + Buffer.byteLength(s.expected), 0) / samplesOf(target).length),
    wireBytesPerResponse: requests ? Math.round(result.throughput.total / requests) : 0,
    flagged: false,
  };
  const perRequest = (p: number) => (requests ? Math.round(((p * 10 * result.duration) / requests) * 100) / 100 : 0);
  m.cpuMsPerRequest = { server: perRequest(m.cpuPct.server), postgres: m.cpuPct.postgres === null ? null : perRequest(m.cpuPct.postgres) };
  // Any answer but 200 fails the run: a ratio over refusals (503 ServiceUnavailable) means nothing.
  m.flagged = m.non2xx > 0 || Object.keys(m.otherStatuses).length > 0 || m.errors > 0 || m.mismatches > 0 || requests === 0;
  return m;
}
