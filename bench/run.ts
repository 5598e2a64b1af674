/**
 * `npm run bench -- [--dataset sample|scale10] [--duration 10] ...`: throughput, latency and
 * memory of the service on a real Postgres, next to two references on the same machine
 * (lib/cached.ts), and with the answer cache off and random parameters next to pgbench on the
 * same SQL (lib/uncached.ts); one summary of every ratio. Everything listens on 127.0.0.1. See
 * bench/README.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { runCachedCases } from './lib/cached';
import { PROFILES, type DatasetProfile } from './lib/cases';
import { COMPRESSED_CASE } from './lib/compression';
import {
  databaseUrl, describeDatabase, existingDatabase, freshSampleDatabase, redact, type BenchDatabase,
} from './lib/database';
import { compressedSizes } from './lib/encoding';
import type { Generator, MeasureOptions } from './lib/measure';
import { findPgbench } from './lib/pgbench';
import { ROOT, runSvapi, startChild, type Child } from './lib/proc';
import { summarizeProfile } from './lib/profile';
import { ratioLines, ratios, sizesTable, summaryTable, table, uncachedTable, verdict } from './lib/report';
import { compressionLine, summaryItems } from './lib/summary';
import { runUncached, uncachedCases } from './lib/uncached';
import { wrkAvailable } from './lib/wrk';
import { runOverload } from './overload';
import { usableCores } from '../src/cpu-quota';
import { databaseOnThisHost, defaultPoolMax } from '../src/db/pool-size';

const USAGE = `usage: npm run bench -- [options]
  --dataset <sample|scaleN>    sample: a fresh database loaded from seeds/data (dropped afterwards)
                               scaleN (scale100, scale10): the existing svapi_scaleN database [sample]
  --overload                   instead of the cases: shedding above capacity, FindItems (1,000
                               items, cache off) at --connections and at 1,024 connections, in
                               rounds (see bench/README.md); needs a generated dataset (--dataset scale10)
  --database-url <url>         use this (loaded) database instead
  --server-url <url>           Postgres server for the fresh sample database
                               [$BENCH_PG_URL or postgres://postgres@127.0.0.1:5432/postgres]
  --duration <s>               measured seconds per case                        [10]
  --warmup <s>                 warm-up seconds per case (discarded)             [2]
  --prime <s>                  seconds of every case once, before the first one  [1]
                               (JIT and lazy loading: otherwise the first case pays)
  --connections <n>            concurrent connections                           [64]
  --generator <wrk|undici>     the load generator of the cached cases and their ratios: wrk
                               (Debian's wrk, one thread) or the undici closed loop of
                               bench/lib/closed-loop.ts; the uncached, compression and
                               overload parts always use the undici loop         [wrk]
  --cache <on|off>             the service's answer cache (off: SVAPI_CACHE_MB=0, so every
                               request reads the database)                      [on]
  --rounds <n>                 rounds of every ratio (median reported)          [3]
  --only <text>                run only the cases (cached and uncached) whose name contains <text>
  --skip-refs                  do not measure the node-soap and raw-http references
  --skip-compression           do not measure GetMonsterGlobals 100 with Accept-Encoding gzip and br
  --uncached-only              only the uncached workload next to pgbench (no cached cases,
                               references or compression)
  --skip-uncached              no uncached workload
  --seed <n>                   seed of the uncached samples (monsters, players)  [1]
  --pgbench <path>             pgbench                     [$(pg_config --bindir)/pgbench]
  --pgbench-clients <n>        pgbench clients: the service's connections, processes x pool
                               [cores x ($SVAPI_DB_POOL_MAX or serve's default)]
  --pgbench-threads <n>        pgbench threads (-j)                              [2]
  --pgbench-protocol <p>       prepared, extended or simple (-M)                 [prepared]
  --profile                    CPU-profile the service (node --cpu-prof; the cached part's and the
                               uncached part's measured process) and print where its time goes
  --keep-db                    keep the fresh sample database
  --keep-access-log            keep the service's access log (a line per request; by default only
                               its other lines are kept, in the service log)`;

const { values: args } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'sample' },
    'database-url': { type: 'string' },
    'server-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    prime: { type: 'string', default: '1' },
    connections: { type: 'string', default: '64' },
    generator: { type: 'string', default: 'wrk' },
    only: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    cache: { type: 'string', default: 'on' },
    'skip-refs': { type: 'boolean', default: false },
    'skip-compression': { type: 'boolean', default: false },
    'uncached-only': { type: 'boolean', default: false },
    'skip-uncached': { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
    pgbench: { type: 'string' },
    'pgbench-clients': { type: 'string' },
    'pgbench-threads': { type: 'string', default: '2' },
    'pgbench-protocol': { type: 'string', default: 'prepared' },
    profile: { type: 'boolean', default: false },
    'keep-db': { type: 'boolean', default: false },
    'keep-access-log': { type: 'boolean', default: false },
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
  generator: args.generator as Generator,
};
if (!['wrk', 'undici'].includes(args.generator!)) {
  console.error(`--generator is wrk or undici\n\n${USAGE}`);
  process.exit(2);
}
if (args.generator === 'wrk' && !wrkAvailable()) {
  console.error('wrk not found: install it (Debian: apt-get install wrk), or give --generator undici');
  process.exit(2);
}
const seed = positive('seed', args.seed!, 0);
// The service as shipped: one process per core it may use, each with its pool (svapi serve's defaults).
const workers = usableCores();
const benchServer = args['database-url'] ?? args['server-url']!;
const poolPerProcess = positive('SVAPI_DB_POOL_MAX', process.env.SVAPI_DB_POOL_MAX || String(defaultPoolMax(databaseOnThisHost(benchServer), workers, workers)));
const pgbenchClients = positive('pgbench-clients', args['pgbench-clients'] ?? String(workers * poolPerProcess));
const pgbenchThreads = positive('pgbench-threads', args['pgbench-threads']!);
if (!['prepared', 'extended', 'simple'].includes(args['pgbench-protocol']!)) {
  console.error(`--pgbench-protocol is prepared, extended or simple\n\n${USAGE}`);
  process.exit(2);
}
if (args['uncached-only'] && args['skip-uncached']) {
  console.error(`--uncached-only and --skip-uncached leave nothing to run\n\n${USAGE}`);
  process.exit(2);
}
const runCached = !args['uncached-only'];
const runUncachedPart = !args['skip-uncached'];
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
/** The output files of the service processes (their access logs), filtered at the end. */
const accessLogs: string[] = [];
async function start(args: string[], env: NodeJS.ProcessEnv, ready: RegExp) {
  const service = args.includes('serve');
  const output = service ? path.join(RESULTS, `${stamp}-${label}-access-${accessLogs.length + 1}.log`) : undefined;
  if (output) accessLogs.push(output);
  const { child, match } = await startChild(args, env, ready, serviceLog, 60_000, output);
  children.add(child);
  return { child, match };
}

/** Moves every line of the services' output but the access log's into the service log (unless --keep-access-log). */
async function filterAccessLogs(): Promise<string> {
  let requests = 0;
  let bytes = 0;
  for (const file of accessLogs) {
    if (!fs.existsSync(file)) continue;
    bytes += fs.statSync(file).size;
    const lines = readline.createInterface({ input: fs.createReadStream(file) });
    for await (const line of lines) {
      if (line.includes('"msg":"request"')) requests++;
      else serviceLog.write(`${line}\n`);
    }
    if (!args['keep-access-log']) fs.rmSync(file);
  }
  return `${requests} access-log lines (${(bytes / 2 ** 20).toFixed(0)} MB)${args['keep-access-log'] ? ` in ${path.relative(ROOT, RESULTS)}/${stamp}-${label}-access-*.log` : ', not kept'}`;
}
async function stop(child: Child) {
  await child.stop();
  children.delete(child);
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = os.loadavg();
  log(`svapi bench: dataset ${label}, answer cache ${args.cache}, ${opts.connections} connections, ${opts.warmupSeconds} s warm-up + ${opts.durationSeconds} s per case, load generator of the cached cases ${opts.generator}`);
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

    // 2. The service's environment: `svapi serve` as shipped (the Dockerfile's NODE_ENV=production;
    // default workers, pool, guards, access log at LOG_LEVEL info), loopback, and only the per-DevID
    // rate limit lifted, so that one key can drive the load.
    const profileDir = path.join(RESULTS, `${stamp}-${label}-profile`);
    const uncachedProfileDir = path.join(RESULTS, `${stamp}-${label}-uncached-profile`);
    const changed = Object.keys(process.env).filter((k) => /^(SVAPI_|LOG_LEVEL$)/.test(k) && !['SVAPI_NAMESPACE', 'SVAPI_PUBLIC_URL'].includes(k));
    if (changed.length) log(`  note: from the environment, not as shipped: ${changed.map((k) => `${k}=${process.env[k]}`).join(' ')}`);
    const serviceEnv: NodeJS.ProcessEnv = {
      ...process.env, NODE_ENV: 'production', DATABASE_URL: db.url, HOST: '127.0.0.1', PORT: '0',
      SVAPI_NAMESPACE: 'SVAPI', SVAPI_PUBLIC_URL: '', SVAPI_RATE_LIMIT: '2147483647',
      ...(args.cache === 'off' ? { SVAPI_CACHE_MB: '0' } : {}),
    };
    // 3. The cached cases, the references and compression (lib/cached.ts).
    const cached = runCached ? await runCachedCases({
      serviceEnv, dbUrl: db.url, profile, key, opts, primeSeconds, rounds: roundCount, only: args.only,
      skipRefs: args['skip-refs']!, skipCompression: args['skip-compression']!, profileDir: args.profile ? profileDir : undefined,
      start, stop, log, progress: (t) => process.stdout.write(t),
    }) : undefined;
    const cachedProfile = runCached && args.profile ? summarizeProfile(profileDir) : undefined;

    // 4. The uncached workload next to pgbench (lib/uncached.ts).
    const uncachedList = runUncachedPart ? await uncachedCases(db.url, profile, seed) : [];
    const uncachedSelected = args.only ? uncachedList.filter((c) => c.name.toLowerCase().includes(args.only!.toLowerCase())) : uncachedList;
    const uncached = uncachedSelected.length ? await runUncached({
      dbUrl: db.url, key, serviceEnv, start, stop, opts, rounds: roundCount,
      pgbench: { binary: args.pgbench ?? findPgbench(), clients: pgbenchClients, threads: pgbenchThreads, protocol: args['pgbench-protocol'] as 'prepared' },
      dir: path.join(RESULTS, `${stamp}-${label}-pgbench`),
      profileDir: args.profile ? uncachedProfileDir : undefined,
      workers, poolPerProcess,
      log, progress: (t) => process.stdout.write(t),
    }, uncachedSelected) : [];
    const uncachedProfile = args.profile ? summarizeProfile(uncachedProfileDir) : undefined;

    // 5. Report.
    const results = cached?.results ?? [];
    const rounds = cached?.rounds ?? [];
    const refs = cached?.refs ?? {};
    const compression = cached?.compression ?? [];
    const r = ratios(results, rounds);
    if (cached) {
      const rows = [
        ...results.map((c) => ({ name: c.name, records: c.records, m: c.measurement, inService: c.inService })),
        ...(refs['node-soap'] ? [{ name: 'ref: bare node-soap GetMonster SOAP 1.1 (round 1)', records: 1, m: refs['node-soap'] }] : []),
        ...(refs['raw-http'] ? [{ name: 'ref: raw http ceiling, same bytes (round 1)', records: 1, m: refs['raw-http'] }] : []),
      ];
      log(`\ncached (answer cache ${args.cache}):`);
      log(table(rows));
      log('');
      log(ratioLines(r));
    }
    if (uncached.length) {
      log(`\nuncached, random parameters (SVAPI_CACHE_MB=0, ${workers} processes as shipped, ${opts.connections} connections) next to the Node floor and pgbench -M ${args['pgbench-protocol']} -c ${pgbenchClients} -j ${pgbenchThreads} -T ${opts.durationSeconds} on the same statements and samples, ${roundCount} round(s):`);
      log(uncachedTable(uncached.map((u) => ({
        name: u.name, samples: u.samples, records: u.records, bytes: u.sizes.plain, flagged: u.failedRounds > 0, ratio: u.ratio, medians: u.medians,
      }))));
      for (const u of uncached.filter((x) => x.floorMedians)) {
        const f = u.floorMedians!;
        log(`Node floor (bench/refs/node-floor.ts, ${workers} processes x pool ${poolPerProcess}), ${u.name}: ${f.rps.toFixed(0)} rps, p99 ${f.p99} ms, `
          + `${f.srvMsPerReq.toFixed(2)} ms/req (pg ${f.pgMsPerReq?.toFixed(2) ?? '-'}); service / floor ${u.vsFloor ? `${u.vsFloor.median.toFixed(3)} (${u.vsFloor.min.toFixed(3)}-${u.vsFloor.max.toFixed(3)})` : 'n/a'}, `
          + `floor / pgbench ${u.floorVsPgbench ? u.floorVsPgbench.median.toFixed(3) : 'n/a'}`);
      }
      for (const u of uncached) {
        u.rounds.forEach((x, i) => { if (x.failed.length) log(`  ${u.name}, round ${i + 1} FAILED, no ratio taken: ${x.failed.join('; ')}`); });
      }
      log(`pgbench scripts and the captured statements: ${path.relative(ROOT, path.join(RESULTS, `${stamp}-${label}-pgbench`))}/`);
    }
    const sizeRows = [
      ...(cached ? [...cached.expected].filter(([name]) => results.some((c) => c.name === name)).map(([name, e]) => ({ name, sizes: compressedSizes([Buffer.from(e.text)]) })) : []),
      ...uncached.map((u) => ({ name: `${u.name} (mean of ${u.samples}; compressed: of ${u.sizes.compressedOver})`, sizes: u.sizes, onTheWire: u.onTheWire })),
    ];
    if (sizeRows.length) {
      log('\nresponse sizes: plain, gzip (zlib level 6) and br (quality 11) by node:zlib, and what the service sent when asked for each:');
      log(sizesTable(sizeRows));
    }
    if (compression.length) {
      log(`\ncompression, ${COMPRESSED_CASE} (cached), medians of ${roundCount} round(s):`);
      for (const c of compression) log(`  ${compressionLine(c)}`);
    }
    if (cachedProfile) log(`\nservice CPU profile, cached part (${cachedProfile.file}):\n${cachedProfile.text}`);
    if (uncachedProfile) log(`\nservice CPU profile, uncached part (${uncachedProfile.file}):\n${uncachedProfile.text}`);
    const flagged = [
      ...results.filter((c) => c.measurement.flagged).map((c) => c.name),
      ...uncached.filter((u) => u.failedRounds > 0).map((u) => u.name),
      ...compression.filter((c) => c.rounds.some((m) => m.flagged)).map((c) => `${COMPRESSED_CASE}, Accept-Encoding ${c.encoding}`),
    ];
    if (flagged.length) log(`\nFAILED (answers but 200, errors or wrong bodies; no ratio taken from those rounds): ${flagged.join('; ')}`);

    log('\n== summary: the ratios of issue 18 (medians of the rounds without a failure; the range in brackets) ==');
    log(summaryTable(summaryItems(r, uncached, compression)));

    const out = path.join(RESULTS, `${stamp}-${label}.json`);
    fs.writeFileSync(out, `${JSON.stringify({
      startedAt: new Date(started).toISOString(),
      seconds: Math.round((Date.now() - started) / 1000),
      dataset: label,
      database: { url: redact(db.url), created: db.created, ...dbInfo },
      profile,
      options: { ...opts, primeSeconds, answerCache: args.cache, seed, pgbench: { clients: pgbenchClients, threads: pgbenchThreads, protocol: args['pgbench-protocol'] } },
      machine: {
        cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryGB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version, loadAverageBefore: loadBefore, loadAverageAfter: os.loadavg(),
      },
      cases: results,
      references: refs,
      ratios: r,
      uncached,
      compression,
      summary: summaryItems(r, uncached, compression).map((i) => ({ ...i, verdict: verdict(i) })),
      profile_summary: cachedProfile,
      uncached_profile_summary: uncachedProfile,
      flagged,
    }, null, 2)}\n`);
    log(`\nresults: ${path.relative(ROOT, out)} (service log: ${path.relative(ROOT, serviceLog.path as string)}); ${Math.round((Date.now() - started) / 1000)} s`);
    if (flagged.length) process.exitCode = 1;
  } finally {
    for (const child of children) await child.stop(2_000);
    for (const cleanup of cleanups) await cleanup().catch((e: Error) => log(`cleanup: ${e.message}`));
    log(`the services' output: ${await filterAccessLogs()}`);
  }
}

// A hard bound on the whole run: every case, reference and pgbench run, plus set-up, twice over
// (and three minutes for capturing the uncached samples' answers).
const perCase = opts.warmupSeconds + opts.durationSeconds + primeSeconds;
const cachedSeconds = runCached ? (14 + 7 * roundCount) * perCase : 0;
const uncachedSeconds = runUncachedPart ? 240 + roundCount * (6 * perCase + 4 * (opts.durationSeconds + 2)) + 20 : 0;
const budgetMs = ((cachedSeconds + uncachedSeconds) * 2 + 300) * 1000;
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
    connections: opts.connections,
    resultsFile: path.join(RESULTS, `${stamp}-${label}.json`),
    log,
    start,
    stop,
  }).then((ok) => {
    if (!ok) process.exitCode = 1;
  }).finally(async () => {
    for (const child of children) await child.stop(2_000);
    log(`the services' output: ${await filterAccessLogs()}`);
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
