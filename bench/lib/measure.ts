import { closedLoop, type CheckedRequest, type LoadResult } from './closed-loop';
import { cpuSeconds, machineBusySeconds, peakRss, processTree, resetPeak, rssSampler, tryCpuSeconds } from './proc';
import type { Request } from './cases';
import { wrkLoad, type WrkLoad } from './wrk';

/** A request and the answer every response to it must be (a correct answer fetched before the run). */
export interface Sample {
  request: Request;
  /** The exact body: text (compared as its UTF-8 bytes) or bytes. */
  expected: string | Buffer;
  /**
   * For a compressed answer, whose bytes may differ from one response to the next: a body that is
   * not `expected` passes when, decoded as `contentEncoding`, it is exactly `plain`.
   */
  inflatesTo?: CheckedRequest['inflatesTo'];
}

/**
 * Where to send the load: one request sent every time (`request` and `expected`), or `samples`,
 * from which every request picks one at random; each response is checked against the answer for
 * its own request.
 */
export type Target = { origin: string } & ({ request: Request; expected: string } | { samples: Sample[] });

export const samplesOf = (t: Target): Sample[] => ('samples' in t ? t.samples : [{ request: t.request, expected: t.expected }]);

/** The load generators: wrk (bench/lib/wrk.ts) or the undici closed loop (bench/lib/closed-loop.ts). */
export type Generator = 'wrk' | 'undici';

export interface MeasureOptions {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /**
   * The load generator for a target of one request (`request` and `expected`); the undici loop
   * when not given. A target of `samples` always gets the undici loop: wrk's script cannot tell
   * which request an answer is for, nor inflate one.
   */
  generator?: Generator;
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
  /** Responses whose body was not the expected one, whatever their status (a refusal's body is not the answer either). */
  mismatches: number;
  /** 2xx responses with a wrong body. */
  wrong2xx: number;
  /** The highest peak resident set of one process of the server (the primary or a worker). */
  peakRssMB: number;
  /** How the peak was taken: VmHWM after a reset (exact), or VmRSS polled every 100 ms. */
  peakRssSource: 'VmHWM' | 'VmRSS-poll';
  /** CPU used during the measured part, as % of one core (the server: every process of it). */
  cpuPct: { server: number; postgres: number | null; loadGenerator: number; machine: number };
  /**
   * The same for each process of the server, the primary first: how the load fell on a cluster's
   * workers (the operating system gives a new connection to whichever worker accepts first).
   */
  cpuPctByProcess: number[];
  /**
   * CPU milliseconds per request of the serving process and of the Postgres backends: steadier
   * than rps on a busy machine, where the process does not get a whole core.
   */
  cpuMsPerRequest: { server: number; postgres: number | null };
  /** The serving process's CPU microseconds per request, unrounded (for ratios). */
  serverCpuUsPerRequest: number;
  /** The load generator that sent the requests. */
  generator: Generator;
  /** The expected body's size (the mean over a target's samples). */
  bytesPerResponse: number;
  /** Bytes received per response, headers included (what went over the wire). */
  wireBytesPerResponse: number;
  flagged: boolean;
}

/** The requests of a target, each with the bytes of its answer. */
function checkedRequests(target: Target): CheckedRequest[] {
  return samplesOf(target).map((s) => ({ request: s.request, expected: Buffer.isBuffer(s.expected) ? s.expected : Buffer.from(s.expected), inflatesTo: s.inflatesTo }));
}

/**
 * One client thread: each request one of the samples, at random, checked against its own answer;
 * one not answered within 10 s is an error (as autocannon's time-out was). Exported for loads that
 * are not measured (the uncached part's settling).
 */
export const load = (target: Target, connections: number, seconds: number): Promise<LoadResult> =>
  closedLoop(target.origin, checkedRequests(target), connections, seconds, { order: 'random', timeoutMs: 10_000 });

/** The generator that loads `target`, and a run of that load (with the generator's CPU where it is a process of its own). */
function generatorFor(target: Target, opts: MeasureOptions): { name: Generator; run: (seconds: number) => Promise<LoadResult | WrkLoad> } {
  if (opts.generator === 'wrk' && !('samples' in target)) {
    const expected = Buffer.from(target.expected);
    return { name: 'wrk', run: (seconds) => wrkLoad(target.origin, target.request, expected, opts.connections, seconds) };
  }
  return { name: 'undici', run: (seconds) => load(target, opts.connections, seconds) };
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
  const generator = generatorFor(target, opts);
  if (opts.warmupSeconds > 0) await generator.run(opts.warmupSeconds);
  const afterRun = await aroundRun?.();
  const serverPids = processTree(serverPid);
  const exactPeak = serverPids.map(resetPeak).every(Boolean);
  const samplers = serverPids.map((pid) => rssSampler(pid));
  const pgPids = backends ? await backends() : [];
  // A backend that ends during the run (its pool let the connection go) is not counted: its CPU
  // read as 0 at the end made the sum negative (-175.8% in one uncached round).
  const pg0 = pgPids.map(tryCpuSeconds);
  const pgCpuSince = () => pgPids.reduce((sum, pid, i) => {
    const now = tryCpuSeconds(pid);
    const then = pg0[i];
    return now === undefined || then === undefined ? sum : sum + now - then;
  }, 0);
  const byProcess0 = serverPids.map(cpuSeconds);
  const cpu0 = { me: process.cpuUsage(), machine: machineBusySeconds(), at: process.hrtime.bigint() };
  const result = await generator.run(opts.durationSeconds);
  const wall = Number(process.hrtime.bigint() - cpu0.at) / 1e9;
  const me = process.cpuUsage(cpu0.me);
  const byProcess = serverPids.map((pid, i) => cpuSeconds(pid) - byProcess0[i]);
  const machine = machineBusySeconds() - cpu0.machine;
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
  const requests = result.responded.count;
  // wrk's own duration leaves out its start; the undici loop runs in this process.
  const rpsSeconds = 'cpuSeconds' in result ? result.seconds : wall;
  const generatorCpu = 'cpuSeconds' in result ? result.cpuSeconds : (me.user + me.system) / 1e6;
  const serverCpu = byProcess.reduce((sum, seconds) => sum + seconds, 0);
  const { p50, p90, p99, max, mean } = result.responded;
  const m: Measurement = {
    requests,
    rps: Math.round((requests / rpsSeconds) * 10) / 10,
    latencyMs: { p50, p90, p99, max, mean },
    non2xx: Object.entries(result.statuses).reduce((n, [code, count]) => n + (code.startsWith('2') ? 0 : count), 0),
    otherStatuses: Object.fromEntries(Object.entries(result.statuses).filter(([code]) => code !== '200')),
    errors: result.connectionErrors,
    mismatches: result.wrongBodies,
    wrong2xx: result.wrong2xx,
    peakRssMB: Math.round((peak / 1048576) * 10) / 10,
    peakRssSource: exactPeak ? 'VmHWM' : 'VmRSS-poll',
    cpuPct: {
      server: pct(serverCpu),
      postgres: backends ? pct(pgCpuSince()) : null,
      loadGenerator: pct(generatorCpu),
      machine: pct(machine),
    },
    cpuPctByProcess: byProcess.map(pct),
    cpuMsPerRequest: { server: 0, postgres: null },
    serverCpuUsPerRequest: requests ? (serverCpu * 1e6) / requests : 0,
    generator: generator.name,
    bytesPerResponse: Math.round(samplesOf(target).reduce((n, s) => n + Buffer.byteLength(s.expected), 0) / samplesOf(target).length),
    wireBytesPerResponse: requests ? Math.round(result.bytesRead / requests) : 0,
    flagged: false,
  };
  const perRequest = (p: number) => (requests ? Math.round(((p * 10 * wall) / requests) * 100) / 100 : 0);
  m.cpuMsPerRequest = { server: perRequest(m.cpuPct.server), postgres: m.cpuPct.postgres === null ? null : perRequest(m.cpuPct.postgres) };
  // Any answer but 200 fails the run: a ratio over refusals (503 ServiceUnavailable) means nothing.
  m.flagged = m.non2xx > 0 || Object.keys(m.otherStatuses).length > 0 || m.errors > 0 || m.mismatches > 0 || requests === 0;
  return m;
}
