/**
 * `npm run bench -- [--dataset sample|scale100] [--duration 10] ...`: throughput, latency and
 * memory of the service on a real Postgres, next to two references on the same machine.
 * Everything listens on 127.0.0.1. See bench/README.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildCases, countRecords, PROFILES, type BenchCase, type DatasetProfile } from './lib/cases';
import {
  databaseUrl, describeDatabase, existingDatabase, freshSampleDatabase, redact, type BenchDatabase,
} from './lib/database';
import { measure, type Measurement, type MeasureOptions, type Target } from './lib/measure';
import { ROOT, runSvapi, startChild, type Child } from './lib/proc';
import { summarizeProfile } from './lib/profile';
import { scrapeBuckets, serviceLatency, type ServiceLatency } from './lib/service-latency';
import { ratioLines, ratios, table, toRound, type CaseResult, type Round } from './lib/report';
import { runOverload } from './overload';

const USAGE = `usage: npm run bench -- [options]
  --dataset <sample|scaleN>    sample: a fresh database loaded from seeds/data (dropped afterwards)
                               scaleN (scale100, scale10): the existing svapi_scaleN database [sample]
  --overload                   instead of the cases: FindItems (1,000 items, cache off) at the
                               service's SVAPI_MAX_IN_FLIGHT and at 4x that (see bench/README.md);
                               needs a generated dataset (--dataset scale10)
  --database-url <url>         use this (loaded) database instead
  --server-url <url>           Postgres server for the fresh sample database
                               [$BENCH_PG_URL or postgres://postgres@127.0.0.1:5432/postgres]
  --duration <s>               measured seconds per case                        [10]
  --warmup <s>                 warm-up seconds per case (discarded)             [2]
  --prime <s>                  seconds of every case once, before the first one  [1]
                               (JIT and lazy loading: otherwise the first case pays)
  --connections <n>            concurrent connections                           [64]
  --cache <on|off>             the service's answer cache (off: SVAPI_CACHE_MB=0, so every
                               request reads the database)                      [on]
  --rounds <n>                 rounds of the two ratios (median reported)       [3]
  --only <text>                run only the cases whose name contains <text>
  --skip-refs                  do not measure the node-soap and raw-http references
  --profile                    CPU-profile the service (node --cpu-prof) and print where its time goes
  --keep-db                    keep the fresh sample database`;

const { values: args } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'sample' },
    'database-url': { type: 'string' },
    'server-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    prime: { type: 'string', default: '1' },
    connections: { type: 'string', default: '64' },
    only: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    cache: { type: 'string', default: 'on' },
    'skip-refs': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'keep-db': { type: 'boolean', default: false },
    overload: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const positive = (name: string, v: string, min = 1) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer >= ${min}\n\n${USAGE}`);
    process.exit(2);
  }
  return n;
};
const primeSeconds = positive('prime', args.prime!, 0);
const roundCount = positive('rounds', args.rounds!);
const opts: MeasureOptions = {
  durationSeconds: positive('duration', args.duration!),
  warmupSeconds: positive('warmup', args.warmup!, 0),
  connections: positive('connections', args.connections!),
};
if (!['on', 'off'].includes(args.cache!)) {
  console.error(`--cache is on or off\n\n${USAGE}`);
  process.exit(2);
}
if (!args['database-url'] && !/^(sample|scale\d+)$/.test(args.dataset!)) {
  console.error(`--dataset is sample or scaleN (or give --database-url)\n\n${USAGE}`);
  process.exit(2);
}

const RESULTS = path.join(ROOT, 'bench/results');
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const label = `${args['database-url'] ? `${args.dataset}-custom` : args.dataset!}${args.cache === 'off' ? '-nocache' : ''}${args.overload ? '-overload' : ''}`;
fs.mkdirSync(RESULTS, { recursive: true });
const serviceLog = fs.createWriteStream(path.join(RESULTS, `${stamp}-${label}.log`));
const log = (s: string) => process.stdout.write(`${s}\n`);

const children = new Set<Child>();
async function start(args: string[], env: NodeJS.ProcessEnv, ready: RegExp) {
  const { child, match } = await startChild(args, env, ready, serviceLog);
  children.add(child);
  return { child, match };
}
async function stop(child: Child) {
  await child.stop();
  children.delete(child);
}

async function fetchChecked(origin: string, req: BenchCase['request']): Promise<{ status: number; text: string; type: string }> {
  const res = await fetch(`${origin}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

/** The fixed GetMonster answer for the node-soap reference, taken from our own response. */
function monsterObject(xml: string): Record<string, unknown> {
  const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
  const field = (name: string) => {
    const m = new RegExp(`<(?:[\\w.-]+:)?${name}>([^<]*)</(?:[\\w.-]+:)?${name}>`).exec(xml);
    return m ? unescape(m[1]) : undefined;
  };
  const description = /<(?:[\w.-]+:)?Description>\s*<(?:[\w.-]+:)?Description>([^<]*)</.exec(xml);
  return {
    MonsterName: field('MonsterName'),
    MonsterID: Number(field('MonsterID')),
    Description: description ? { Description: unescape(description[1]), ItemPictureURL: field('ItemPictureURL') } : undefined,
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = os.loadavg();
  log(`svapi bench: dataset ${label}, answer cache ${args.cache}, ${opts.connections} connections, ${opts.warmupSeconds} s warm-up + ${opts.durationSeconds} s per case`);
  log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`);
  if (loadBefore[0] > os.cpus().length / 2) log('  note: the machine is busy; numbers will be noisy');

  // 1. The database and a fresh credential.
  let db: BenchDatabase;
  let profile: DatasetProfile;
  if (args['database-url']) {
    db = await existingDatabase(databaseUrl(args['database-url']));
    profile = PROFILES[args.dataset === 'sample' ? 'sample' : 'generated'];
  } else if (args.dataset === 'sample') {
    db = await freshSampleDatabase(args['server-url']!, log);
    profile = PROFILES.sample;
  } else {
    db = await existingDatabase(databaseUrl(args['server-url']!, `svapi_${args.dataset}`));
    profile = PROFILES.generated;
  }
  const cleanups: (() => Promise<unknown>)[] = [];
  if (db.created && !args['keep-db']) cleanups.push(() => db.drop());
  try {
    const dbInfo = await describeDatabase(db.url);
    log(`database: ${redact(db.url)} ${JSON.stringify(dbInfo)}`);
    const adminEnv = { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
    const key = JSON.parse(await runSvapi(['keys', 'create', '--name', `bench ${stamp}`, '--json'], adminEnv)) as { DevID: number; DevKey: string };
    cleanups.unshift(() => runSvapi(['keys', 'revoke', String(key.DevID)], adminEnv));

    // 2. The service, in a child process, as deployed (NODE_ENV=production), limits out of the way.
    const profileDir = path.join(RESULTS, `${stamp}-${label}-profile`);
    const serviceEnv: NodeJS.ProcessEnv = {
      ...process.env, NODE_ENV: 'production', DATABASE_URL: db.url, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn',
      SVAPI_NAMESPACE: 'SVAPI', SVAPI_PUBLIC_URL: '', SVAPI_RATE_LIMIT: '2147483647', SVAPI_AUTH_FAIL_LIMIT: '2147483647',
      // Throughput at 64 connections, not the overload bound (that is --overload).
      SVAPI_MAX_IN_FLIGHT: '1000000',
      ...(args.cache === 'off' ? { SVAPI_CACHE_MB: '0' } : {}),
    };
    const nodeArgs = args.profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    const service = await start([...nodeArgs, 'bin/svapi.js', 'serve', '--workers', '1'], serviceEnv, /svapi listening on (http:\/\/\S+)/);
    const origin = service.match[1];
    log(`service: pid ${service.child.pid} at ${origin}`);

    // 3. Every case's answer is checked once before it is measured.
    const allCases = buildCases(profile, key.DevID, key.DevKey);
    const cases = args.only ? allCases.filter((c) => c.name.toLowerCase().includes(args.only!.toLowerCase())) : allCases;
    const expected = new Map<string, { text: string; records: number }>();
    for (const c of allCases) {
      const r = await fetchChecked(origin, c.request);
      if (r.status !== 200) throw new Error(`${c.name}: status ${r.status}: ${r.text.slice(0, 400)}`);
      expected.set(c.name, { text: r.text, records: countRecords(r.text, c.operation.record) });
    }

    // Prime: every case briefly, so the first measured case does not pay for JIT and lazy loading
    // (at 8 connections: a slow case must not leave a deep backlog behind).
    if (primeSeconds > 0) {
      const primeConnections = Math.min(8, opts.connections);
      process.stdout.write(`priming: every case for ${primeSeconds} s at ${primeConnections} connections ... `);
      for (const c of cases) {
        await measure({ origin, request: c.request, expected: expected.get(c.name)!.text }, service.child.pid,
          { connections: primeConnections, warmupSeconds: 0, durationSeconds: primeSeconds });
      }
      log('done');
    }

    const results: CaseResult[] = [];
    for (const [i, c] of cases.entries()) {
      const exp = expected.get(c.name)!;
      // Settle: a slow case leaves queued work in the service after its clients are gone. One
      // request of this case, checked again, waits behind that backlog before the warm-up starts.
      const settled = Date.now();
      let again = await fetchChecked(origin, c.request);
      while (again.status !== 200 && Date.now() - settled < 30_000) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        again = await fetchChecked(origin, c.request);
      }
      if (again.status !== 200 || again.text !== exp.text) throw new Error(`${c.name}: the answer changed (status ${again.status})`);
      const settleMs = Date.now() - settled;
      process.stdout.write(`[${i + 1}/${cases.length}] ${c.name} (${exp.records} records, ${(Buffer.byteLength(exp.text) / 1024).toFixed(1)} KB${settleMs > 1000 ? `, settled ${settleMs} ms` : ''}) ... `);
      const target: Target = { origin, request: c.request, expected: exp.text };
      let inService: ServiceLatency | undefined;
      const m = await measure(target, service.child.pid, opts, db.name, async () => {
        const before = await scrapeBuckets(origin, c.operation.name, c.binding);
        return async () => { inService = serviceLatency(before, await scrapeBuckets(origin, c.operation.name, c.binding)); };
      });
      results.push({ name: c.name, operation: c.operation.name, binding: c.binding, records: exp.records, measurement: m, inService });
      log(`${m.rps.toFixed(0)} rps, p50 ${m.latencyMs.p50} ms, p99 ${m.latencyMs.p99} ms (in the service: p99 <= ${inService?.p99AtMostMs ?? '?'} ms), ${m.peakRssMB} MB${m.flagged ? '  FLAGGED' : ''}`);
    }
    // 4. The references, each in its own child process, with the SOAP 1.1 GetMonster request,
    // started next to the service (idle while it is not measured). The machine's speed drifts (on
    // a shared VM the ceiling alone has measured anywhere from 15,000 to 29,000 rps in one
    // session), so each ratio is taken in rounds: ours and its reference measured back to back,
    // the ratio per round, and the median of the rounds reported.
    const rounds: Round[] = [];
    const refs: Record<string, Measurement> = {};
    if (!args['skip-refs']) {
      const getMonster = (binding: string) => allCases.find((c) => c.operation.name === 'GetMonster' && c.binding === binding)!;
      const [soap11, httpGet] = [getMonster('SOAP 1.1'), getMonster('HTTP GET')];
      const ours11 = expected.get(soap11.name)!;
      const request = soap11.request;
      const soapRef = await start(['bin/run-ts.js', 'bench/refs/node-soap.ts', JSON.stringify(monsterObject(ours11.text))], process.env, /^\{"url"/);
      const soapOrigin = new URL(JSON.parse(soapRef.match.input!).url).origin;
      const soapAnswer = await fetchChecked(soapOrigin, request);
      if (soapAnswer.status !== 200 || !soapAnswer.text.includes('MonsterName')) {
        throw new Error(`node-soap reference: status ${soapAnswer.status}: ${soapAnswer.text.slice(0, 400)}`);
      }
      const bodyFile = path.join(os.tmpdir(), `svapi-bench-${process.pid}.xml`);
      fs.writeFileSync(bodyFile, ours11.text);
      const raw = await start(['bin/run-ts.js', 'bench/refs/raw-http.ts', bodyFile], process.env, /^\{"url"/);
      const rawOrigin = new URL(JSON.parse(raw.match.input!).url).origin;

      for (let i = 1; i <= roundCount; i++) {
        process.stdout.write(`[round ${i}/${roundCount}] GetMonster SOAP 1.1 vs bare node-soap, HTTP GET vs raw http ceiling ... `);
        const soapOurs = await measure({ origin, request, expected: ours11.text }, service.child.pid, opts);
        const soapRefM = await measure({ origin: soapOrigin, request, expected: soapAnswer.text }, soapRef.child.pid, opts);
        const httpOurs = await measure({ origin, request: httpGet.request, expected: expected.get(httpGet.name)!.text }, service.child.pid, opts);
        const rawM = await measure({ origin: rawOrigin, request, expected: ours11.text }, raw.child.pid, opts);
        const round = toRound(soapOurs, soapRefM, httpOurs, rawM);
        rounds.push(round);
        if (i === 1) Object.assign(refs, { 'node-soap': soapRefM, 'raw-http': rawM });
        log(`${round.soap11.toFixed(3)}, ${round.httpGet.toFixed(3)} (node-soap ${soapRefM.rps.toFixed(0)} rps, ceiling ${rawM.rps.toFixed(0)} rps)`);
      }
      await stop(soapRef.child);
      await stop(raw.child);
      fs.rmSync(bodyFile, { force: true });
    }
    await stop(service.child);
    const profileSummary = args.profile ? summarizeProfile(profileDir) : undefined;

    // 5. Report.
    const r = ratios(results, rounds);
    const rows = [
      ...results.map((c) => ({ name: c.name, records: c.records, m: c.measurement, inService: c.inService })),
      ...(refs['node-soap'] ? [{ name: 'ref: bare node-soap GetMonster SOAP 1.1 (round 1)', records: 1, m: refs['node-soap'] }] : []),
      ...(refs['raw-http'] ? [{ name: 'ref: raw http ceiling, same bytes (round 1)', records: 1, m: refs['raw-http'] }] : []),
    ];
    log('');
    log(table(rows));
    log('');
    log(ratioLines(r));
    if (profileSummary) log(`\nservice CPU profile (${profileSummary.file}):\n${profileSummary.text}`);
    const flagged = results.filter((c) => c.measurement.flagged).map((c) => c.name);
    if (flagged.length) log(`\nFLAGGED (non-2xx, errors or wrong bodies): ${flagged.join('; ')}`);

    const out = path.join(RESULTS, `${stamp}-${label}.json`);
    fs.writeFileSync(out, `${JSON.stringify({
      startedAt: new Date(started).toISOString(),
      seconds: Math.round((Date.now() - started) / 1000),
      dataset: label,
      database: { url: redact(db.url), created: db.created, ...dbInfo },
      profile,
      options: { ...opts, primeSeconds, answerCache: args.cache },
      machine: {
        cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryGB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version, loadAverageBefore: loadBefore, loadAverageAfter: os.loadavg(),
      },
      cases: results,
      references: refs,
      ratios: r,
      profile_summary: profileSummary,
      flagged,
    }, null, 2)}\n`);
    log(`\nresults: ${path.relative(ROOT, out)} (service log: ${path.relative(ROOT, serviceLog.path as string)}); ${Math.round((Date.now() - started) / 1000)} s`);
    if (flagged.length) process.exitCode = 1;
  } finally {
    for (const child of children) await child.stop(2_000);
    for (const cleanup of cleanups) await cleanup().catch((e: Error) => log(`cleanup: ${e.message}`));
  }
}

// A hard bound on the whole run: every case and reference, plus set-up, twice over.
const budgetMs = ((14 + 4 * roundCount) * (opts.warmupSeconds + opts.durationSeconds + primeSeconds) * 2 + 300) * 1000;
const deadline = setTimeout(() => {
  console.error(`bench: still running after ${budgetMs / 1000} s; stopping`);
  for (const child of children) child.proc.kill('SIGKILL');
  process.exit(3);
}, budgetMs);
deadline.unref();

const run = args.overload
  ? () => runOverload({
    databaseUrl: databaseUrl(args['database-url'] ?? args['server-url']!, args['database-url'] ? undefined : `svapi_${args.dataset === 'sample' ? 'scale10' : args.dataset}`),
    durationSeconds: opts.durationSeconds,
    warmupSeconds: opts.warmupSeconds,
    rounds: roundCount,
    serviceLog,
    resultsFile: path.join(RESULTS, `${stamp}-${label}.json`),
    log,
    children,
  }).then((ok) => {
    if (!ok) process.exitCode = 1;
  })
  : main;

run().then(
  () => {
    serviceLog.end();
    process.exit();
  },
  (e: unknown) => {
    console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
    for (const child of children) child.proc.kill('SIGKILL');
    process.exit(1);
  },
);
