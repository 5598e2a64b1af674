/**
 * `npm run bench -- --overload [--dataset scale10] ...`: how the service holds under 4x the load
 * it can serve (SVAPI_MAX_IN_FLIGHT). One service process (cache off: every FindItems reads
 * 1,000 items and writes them) is measured at the concurrency of its bound, then at 4x that, in
 * rounds; the answered calls' p99, the refusals' latency and the peak RSS are compared. Before
 * that, the same service without a bound is ramped up (throughput and latency by concurrency: where
 * more calls in flight stop adding throughput), and measured once at the 4x load. See
 * bench/README.md.
 */
import fs from 'node:fs';
import { buildRequest, BINDINGS, countRecords, type Operation } from './lib/cases';
import { closedLoop, type CheckedRequest, type LoadResult } from './lib/closed-loop';
import { describeDatabase, existingDatabase, redact } from './lib/database';
import { peakRss, resetPeak, rssSampler, runSvapi, startChild, type Child } from './lib/proc';

export interface OverloadOptions {
  databaseUrl: string;
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
  serviceLog: fs.WriteStream;
  resultsFile: string;
  log: (s: string) => void;
  /** Children started are registered here (the caller kills them if the run fails). */
  children: Set<Child>;
}

/** Common substrings of generated item names: each is in more than 1,000 of them at scale 10. */
const COMMON_WORDS = ['er', 'in', 're', 'st', 'en', 'ar', 'or', 'an', 'on'];
const RAMP = [1, 2, 5, 10, 20, 40];
const UNBOUNDED = '1000000';

interface Phase {
  connections: number;
  load: LoadResult;
  peakRssMB: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

export async function runOverload(o: OverloadOptions): Promise<boolean> {
  const db = await existingDatabase(o.databaseUrl);
  o.log(`overload bench: database ${redact(db.url)} ${JSON.stringify(await describeDatabase(db.url))}`);
  const adminEnv = { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
  const key = JSON.parse(await runSvapi(['keys', 'create', '--name', 'bench overload', '--json'], adminEnv)) as { DevID: number; DevKey: string };
  try {
    const serve = async (maxInFlight: string | undefined) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env, NODE_ENV: 'production', DATABASE_URL: db.url, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn',
        SVAPI_NAMESPACE: 'SVAPI', SVAPI_PUBLIC_URL: '', SVAPI_RATE_LIMIT: '2147483647', SVAPI_AUTH_FAIL_LIMIT: '2147483647',
        SVAPI_CACHE_MB: '0', SVAPI_MAX_IN_FLIGHT: maxInFlight ?? process.env.SVAPI_MAX_IN_FLIGHT,
      };
      const { child, match } = await startChild(['bin/svapi.js', 'serve', '--workers', '1'], env, /svapi listening on (http:\/\/\S+)/, o.serviceLog);
      o.children.add(child);
      const metrics = await (await fetch(`${match[1]}/metrics`)).text();
      const bound = Number(/^svapi_max_in_flight (\d+)/m.exec(metrics)?.[1]);
      return { child, origin: match[1], bound, stop: async () => { await child.stop(); o.children.delete(child); } };
    };
    const phase = async (pid: number, origin: string, requests: CheckedRequest[], connections: number, seconds: number): Promise<Phase> => {
      if (o.warmupSeconds > 0) await closedLoop(origin, requests, connections, o.warmupSeconds);
      const exact = resetPeak(pid);
      const sampler = rssSampler(pid);
      const load = await closedLoop(origin, requests, connections, seconds);
      const polled = sampler.stop();
      const peak = exact ? Math.max(peakRss(pid), polled) : polled;
      return { connections, load, peakRssMB: Math.round(peak / 104857.6) / 10 };
    };
    const describe = (p: Phase) => `${p.connections} conn: ${p.load.answeredRps} answered/s, answered p50 ${p.load.answered.p50} ms p99 ${p.load.answered.p99} ms`
      + `${p.load.refused.count ? `, refused ${p.load.refused.count} (p50 ${p.load.refused.p50} ms, p99 ${p.load.refused.p99} ms, max ${p.load.refused.max} ms)` : ''}`
      + `, peak RSS ${p.peakRssMB} MB${p.load.other ? `, OTHER ${p.load.other}: ${p.load.otherSample}` : ''}`;

    // The requests: FindItems with each common word that gives a full page, on each binding,
    // each with its correct answer (checked byte for byte under load).
    const unbounded = await serve(UNBOUNDED);
    const requests: CheckedRequest[] = [];
    const words: string[] = [];
    for (const word of COMMON_WORDS) {
      const op: Operation = { label: 'FindItems', name: 'FindItems', path: '/api/item.asmx', params: [['SearchWord', word]], record: 'Item' };
      for (const binding of BINDINGS) {
        const request = buildRequest(op, binding, key.DevID, key.DevKey);
        const res = await fetch(`${unbounded.origin}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
        const expected = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200) throw new Error(`FindItems "${word}" ${binding}: status ${res.status}`);
        if (countRecords(expected.toString(), 'Item') < 1000) break;
        requests.push({ request, expected });
        if (!words.includes(word)) words.push(word);
      }
    }
    if (!requests.length) throw new Error('no common word gives 1,000 items: load a larger dataset (svapi generate --scale 10)');
    o.log(`FindItems, 1,000 items each, SearchWord ${words.map((w) => `"${w}"`).join(' ')} over SOAP 1.1, SOAP 1.2 and HTTP GET (${(requests[0].expected.length / 1024).toFixed(0)} KB), cache off`);

    // 1. Without a bound: throughput by concurrency.
    o.log('\nwithout a bound (SVAPI_MAX_IN_FLIGHT unlimited), by concurrency:');
    const ramp: Phase[] = [];
    for (const connections of RAMP) {
      const p = await phase(unbounded.child.pid, unbounded.origin, requests, connections, Math.max(3, Math.round(o.durationSeconds / 2)));
      ramp.push(p);
      o.log(`  ${describe(p)}`);
    }

    // 2. The default bound: at its concurrency, then at 4x, in rounds; without a bound at 4x once.
    const bounded = await serve(undefined);
    const base = bounded.bound;
    o.log(`\ndefault bound: SVAPI_MAX_IN_FLIGHT = ${base}; load ${base} connections (what the process serves), overload ${4 * base}`);
    const rounds: { base: Phase; overload: Phase; ratio: number }[] = [];
    for (let i = 1; i <= o.rounds; i++) {
      const b = await phase(bounded.child.pid, bounded.origin, requests, base, o.durationSeconds);
      const v = await phase(bounded.child.pid, bounded.origin, requests, 4 * base, o.durationSeconds);
      const ratio = Math.round((v.load.answered.p99 / b.load.answered.p99) * 100) / 100;
      rounds.push({ base: b, overload: v, ratio });
      o.log(`  [round ${i}/${o.rounds}] ${describe(b)}\n                ${describe(v)}\n                answered p99 at 4x / at 1x: ${ratio}`);
    }
    await bounded.stop();
    const noBound = await phase(unbounded.child.pid, unbounded.origin, requests, 4 * base, o.durationSeconds);
    o.log(`  without a bound, ${describe(noBound)}`);
    await unbounded.stop();

    const summary = {
      bound: base,
      answeredP99BaseMs: median(rounds.map((r) => r.base.load.answered.p99)),
      answeredP99OverloadMs: median(rounds.map((r) => r.overload.load.answered.p99)),
      p99Ratio: median(rounds.map((r) => r.ratio)),
      refusedP99Ms: median(rounds.map((r) => r.overload.load.refused.p99)),
      refusedMaxMs: Math.max(...rounds.map((r) => r.overload.load.refused.max)),
      answeredRpsBase: median(rounds.map((r) => r.base.load.answeredRps)),
      answeredRpsOverload: median(rounds.map((r) => r.overload.load.answeredRps)),
      peakRssMB: Math.max(...rounds.flatMap((r) => [r.base.peakRssMB, r.overload.peakRssMB])),
      other: rounds.reduce((n, r) => n + r.base.load.other + r.overload.load.other, 0),
    };
    const checks = [
      [`answered p99 at 4x within 2x of 1x (median of rounds): ${summary.answeredP99OverloadMs} / ${summary.answeredP99BaseMs} ms = ${summary.p99Ratio}`, summary.p99Ratio <= 2],
      [`refused within 100 ms: p99 ${summary.refusedP99Ms} ms (median of rounds), max ${summary.refusedMaxMs} ms`, summary.refusedP99Ms <= 100],
      [`peak RSS under 250 MB: ${summary.peakRssMB} MB (highest of every round)`, summary.peakRssMB < 250],
      [`no wrong answers or errors: ${summary.other}`, summary.other === 0],
    ] as const;
    o.log('');
    for (const [text, ok] of checks) o.log(`${ok ? 'ok  ' : 'FAIL'} ${text}`);
    fs.writeFileSync(o.resultsFile, `${JSON.stringify({ words, ramp, rounds, withoutBoundAt4x: noBound, summary }, null, 2)}\n`);
    o.log(`\nresults: ${o.resultsFile}`);
    return checks.every(([, ok]) => ok);
  } finally {
    await runSvapi(['keys', 'revoke', String(key.DevID)], adminEnv).catch((e: Error) => o.log(`cleanup: ${e.message}`));
  }
}
