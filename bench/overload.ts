/**
 * `npm run bench -- --overload [--dataset scale10] ...`: issue 18's "clean shedding above
 * capacity" on `svapi serve` as shipped (default workers, pool, overload guards, access log; only
 * the per-DevID rate limit and the auth-failure throttle lifted, and the answer cache off: every
 * FindItems reads 1,000 items and writes them). In rounds: a normal load (--connections, 64),
 * then 1,024 connections with /healthz probed throughout; after each, one normal call. The checks
 * are the issue's targets. See bench/README.md.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { buildRequest, BINDINGS, countRecords, type Operation } from './lib/cases';
import { closedLoop, percentiles, type CheckedRequest, type LoadResult, type Percentiles, type Slowest } from './lib/closed-loop';
import { describeDatabase, existingDatabase, redact } from './lib/database';
import { peakRss, processTree, resetPeak, rss, runSvapi, type Child } from './lib/proc';

export interface OverloadOptions {
  databaseUrl: string;
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
  /** The normal load's connections. */
  connections: number;
  resultsFile: string;
  log: (s: string) => void;
  /** Starts `node <args>` as run.ts does (the service's output, its access log, into a file of its own). */
  start(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: Child; match: RegExpMatchArray }>;
  stop(child: Child): Promise<void>;
}

/** Common substrings of generated item names: each is in more than 1,000 of them at scale 10. */
const COMMON_WORDS = ['er', 'in', 're', 'st', 'en', 'ar', 'or', 'an', 'on'];
const OVERLOAD_CONNECTIONS = 1024;
/** Threads the clients run in (closed-loop.ts): one thread fell behind under the overload, and its lateness was timed as the service's. */
const CLIENT_THREADS = 2;
// The issue's targets.
const MAX_WAIT_MS = 2000;
const HEALTHZ_MS = 500;
const RSS_MB = 300;

interface Phase {
  connections: number;
  load: LoadResult;
  /** Peak RSS of each process of the service (primary first), MB. */
  peakRssMB: number[];
  /** /healthz probed during the phase (overload only). */
  healthz?: Percentiles & { failed: number; slowest: Slowest };
  /** One normal call right after the phase. */
  after: { status: number; ms: number; ok: boolean };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : Math.round(((s[m - 1] + s[m]) / 2) * 10) / 10;
};
const mb = (bytes: number) => Math.round(bytes / 104857.6) / 10;

/** The peak RSS of every process in the tree during `run` (VmHWM reset at the start where allowed, and polled). */
async function peaksDuring<T>(pids: number[], run: () => Promise<T>): Promise<{ result: T; peaks: number[] }> {
  const exact = pids.map((pid) => resetPeak(pid));
  const polled = pids.map(() => 0);
  const sample = () => pids.forEach((pid, i) => {
    try {
      polled[i] = Math.max(polled[i], rss(pid));
    } catch {
      // exited
    }
  });
  sample();
  const timer = setInterval(sample, 100);
  try {
    const result = await run();
    sample();
    return { result, peaks: pids.map((pid, i) => Math.max(polled[i], exact[i] ? peakRss(pid) : 0)) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * GET /healthz on a new connection each time, one after another (100 ms apart) until `stop()`;
 * started as the load starts. Also when the slowest probe began: at the start, behind the
 * clients' connections and first requests all at once, or in the steady overload.
 */
function probeHealthz(origin: string) {
  const times: number[] = [];
  const startedAt = performance.now();
  let slowest: Slowest = { ms: -1, startedAfterMs: 0 };
  let failed = 0;
  let running = true;
  const once = () => new Promise<void>((resolve) => {
    const t0 = performance.now();
    const done = (ok: boolean) => {
      const ms = performance.now() - t0;
      times.push(ms);
      if (ms > slowest.ms) slowest = { ms, startedAfterMs: t0 - startedAt };
      if (!ok) failed++;
      resolve();
    };
    const req = http.get(`${origin}/healthz`, { agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode === 200));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => done(false));
  });
  const loop = (async () => {
    while (running) {
      await once();
      if (running) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { ...percentiles(times), failed, slowest: { ms: Math.round(slowest.ms * 10) / 10, startedAfterMs: Math.round(slowest.startedAfterMs) } };
    },
  };
}

async function normalCall(origin: string, c: CheckedRequest): Promise<Phase['after']> {
  const t0 = performance.now();
  const res = await fetch(`${origin}${c.request.path}`, { method: c.request.method, headers: c.request.headers, body: c.request.body });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, ms: Math.round(performance.now() - t0), ok: res.status === 200 && body.equals(c.expected) };
}

export async function runOverload(o: OverloadOptions): Promise<boolean> {
  const db = await existingDatabase(o.databaseUrl);
  const loadBefore = os.loadavg();
  o.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`);
  o.log(`overload bench: database ${redact(db.url)} ${JSON.stringify(await describeDatabase(db.url))}`);
  const adminEnv = { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
  const key = JSON.parse(await runSvapi(['keys', 'create', '--name', 'bench overload', '--json'], adminEnv)) as { DevID: number; DevKey: string };
  try {
    const changed = Object.keys(process.env).filter((k) => /^(SVAPI_|LOG_LEVEL$)/.test(k) && !['SVAPI_NAMESPACE', 'SVAPI_PUBLIC_URL'].includes(k));
    if (changed.length) o.log(`  note: from the environment, not as shipped: ${changed.map((k) => `${k}=${process.env[k]}`).join(' ')}`);
    const env: NodeJS.ProcessEnv = {
      ...process.env, NODE_ENV: 'production', DATABASE_URL: db.url, HOST: '127.0.0.1', PORT: '0',
      SVAPI_NAMESPACE: 'SVAPI', SVAPI_PUBLIC_URL: '', SVAPI_RATE_LIMIT: '2147483647', SVAPI_AUTH_FAIL_LIMIT: '2147483647', SVAPI_CACHE_MB: '0',
    };
    const service = await o.start(['bin/svapi.js', 'serve'], env, /svapi listening on (http:\/\/\S+)/);
    const origin = service.match[1];
    const pids = processTree(service.child.pid);
    o.log(`service: \`svapi serve\` as shipped, ${pids.length} processes (primary ${pids[0]}, workers ${pids.slice(1).join(', ')}) at ${origin}`);

    // The requests: FindItems with each common word that gives a full page, on each binding,
    // each with its correct answer (checked byte for byte under load).
    const requests: CheckedRequest[] = [];
    const words: string[] = [];
    for (const word of COMMON_WORDS) {
      const op: Operation = { label: 'FindItems', name: 'FindItems', path: '/api/item.asmx', params: [['SearchWord', word]], record: 'Item' };
      for (const binding of BINDINGS) {
        const request = buildRequest(op, binding, key.DevID, key.DevKey);
        const res = await fetch(`${origin}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
        const expected = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200) throw new Error(`FindItems "${word}" ${binding}: status ${res.status}`);
        if (countRecords(expected.toString(), 'Item') < 1000) break;
        requests.push({ request, expected });
        if (!words.includes(word)) words.push(word);
      }
    }
    if (!requests.length) throw new Error('no common word gives 1,000 items: load a larger dataset (svapi generate --scale 10)');
    o.log(`FindItems, 1,000 items each, SearchWord ${words.map((w) => `"${w}"`).join(' ')} over SOAP 1.1, SOAP 1.2 and HTTP GET (${(requests[0].expected.length / 1024).toFixed(0)} KB), cache off`);
    o.log(`in ${o.rounds} round(s): ${o.connections} connections for ${o.durationSeconds} s, then ${OVERLOAD_CONNECTIONS} for ${o.durationSeconds} s with /healthz probed; after each, one normal call`);

    const phase = async (connections: number): Promise<Phase> => {
      let probe: ReturnType<typeof probeHealthz> | undefined;
      const onStart = connections === OVERLOAD_CONNECTIONS ? () => { probe = probeHealthz(origin); } : undefined;
      const { result: load, peaks } = await peaksDuring(pids, () => closedLoop(origin, requests, connections, o.durationSeconds, { threads: CLIENT_THREADS, onStart }));
      const healthz = await probe?.stop();
      const after = await normalCall(origin, requests[0]);
      return { connections, load, peakRssMB: peaks.map(mb), healthz, after };
    };
    const slowest = (p: Phase) => p.load.slowest.ms;
    const describe = (p: Phase) => `${p.connections} conn: ${p.load.answered.count} answered (${p.load.answeredRps}/s, p50 ${p.load.answered.p50} ms, p99 ${p.load.answered.p99} ms, max ${p.load.answered.max} ms)`
      + `, ${p.load.refused.count} refused (p50 ${p.load.refused.p50} ms, p99 ${p.load.refused.p99} ms, max ${p.load.refused.max} ms)`
      + `; the slowest began ${(p.load.slowest.startedAfterMs / 1000).toFixed(1)} s into the phase`
      + `${p.load.other ? `, OTHER ${p.load.other} (connection errors ${p.load.connectionErrors}): ${p.load.otherSample}` : ''}`
      + `${p.healthz ? `; /healthz ${p.healthz.count} probes, p50 ${p.healthz.p50} ms, max ${p.healthz.max} ms (began ${(p.healthz.slowest.startedAfterMs / 1000).toFixed(1)} s into the phase)${p.healthz.failed ? `, ${p.healthz.failed} FAILED` : ''}` : ''}`
      + `; peak RSS ${p.peakRssMB.join(' / ')} MB; then a normal call: ${p.after.status}${p.after.ok ? '' : ' (WRONG)'} in ${p.after.ms} ms`;

    if (o.warmupSeconds > 0) await closedLoop(origin, requests, o.connections, o.warmupSeconds, { threads: CLIENT_THREADS });
    const rounds: { normal: Phase; overload: Phase }[] = [];
    for (let i = 1; i <= o.rounds; i++) {
      const normal = await phase(o.connections);
      const overload = await phase(OVERLOAD_CONNECTIONS);
      rounds.push({ normal, overload });
      o.log(`  [round ${i}/${o.rounds}] ${describe(normal)}\n                ${describe(overload)}`);
    }
    await o.stop(service.child);

    const phases = rounds.flatMap((r) => [r.normal, r.overload]);
    const summary = {
      processes: pids.length,
      // Correctness in every round; times on the median of the rounds (the machine is shared).
      other: phases.reduce((n, p) => n + p.load.other - p.load.connectionErrors, 0),
      connectionErrors: phases.reduce((n, p) => n + p.load.connectionErrors, 0),
      slowestMs: median(rounds.map((r) => Math.max(slowest(r.normal), slowest(r.overload)))),
      slowestEverMs: Math.max(...phases.map(slowest)),
      healthzMaxMs: median(rounds.map((r) => r.overload.healthz!.max)),
      healthzMaxEverMs: Math.max(...rounds.map((r) => r.overload.healthz!.max)),
      healthzFailed: rounds.reduce((n, r) => n + r.overload.healthz!.failed, 0),
      peakRssMB: pids.map((_, i) => median(phases.map((p) => p.peakRssMB[i]))),
      peakRssEverMB: Math.max(...phases.flatMap((p) => p.peakRssMB)),
      afterFailed: phases.filter((p) => !p.after.ok).map((p) => `${p.connections} conn: ${p.after.status}`),
      answeredRpsNormal: median(rounds.map((r) => r.normal.load.answeredRps)),
      answeredRpsOverload: median(rounds.map((r) => r.overload.load.answeredRps)),
      refusedShareOverload: median(rounds.map((r) => Math.round((r.overload.load.refused.count / Math.max(1, r.overload.load.refused.count + r.overload.load.answered.count)) * 1000) / 10)),
    };
    const checks = [
      [`every answer 200 (the right bytes) or 503 ServiceUnavailable with Retry-After, in every round: ${summary.other} other`, summary.other === 0],
      [`no request waits more than ${MAX_WAIT_MS / 1000} s: slowest ${summary.slowestMs} ms (median of rounds; slowest of all ${summary.slowestEverMs} ms)`, summary.slowestMs <= MAX_WAIT_MS],
      [`no connection errors: ${summary.connectionErrors}`, summary.connectionErrors === 0],
      [`/healthz within ${HEALTHZ_MS} ms during the overload: max ${summary.healthzMaxMs} ms (median of rounds; slowest of all ${summary.healthzMaxEverMs} ms), ${summary.healthzFailed} failed`,
        summary.healthzMaxMs <= HEALTHZ_MS && summary.healthzFailed === 0],
      [`RSS per process below ${RSS_MB} MB: ${summary.peakRssMB.join(' / ')} MB (primary / workers, median of phases' peaks; highest ${summary.peakRssEverMB} MB)`, Math.max(...summary.peakRssMB) < RSS_MB],
      [`a normal call right after gets 200, after every phase: ${summary.afterFailed.length ? `FAILED ${summary.afterFailed.join(', ')}` : 'yes'}`, summary.afterFailed.length === 0],
    ] as const;
    o.log(`\nload average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    o.log(`answered/s (median of rounds): ${summary.answeredRpsNormal} at ${o.connections} connections, ${summary.answeredRpsOverload} at ${OVERLOAD_CONNECTIONS} (${summary.refusedShareOverload}% refused)`);
    for (const [text, ok] of checks) o.log(`${ok ? 'ok  ' : 'FAIL'} ${text}`);
    fs.writeFileSync(o.resultsFile, `${JSON.stringify({ loadAverageBefore: loadBefore, loadAverageAfter: os.loadavg(), words, connections: [o.connections, OVERLOAD_CONNECTIONS], rounds, summary }, null, 2)}\n`);
    o.log(`\nresults: ${o.resultsFile}`);
    return checks.every(([, ok]) => ok);
  } finally {
    await runSvapi(['keys', 'revoke', String(key.DevID)], adminEnv).catch((e: Error) => o.log(`cleanup: ${e.message}`));
  }
}
