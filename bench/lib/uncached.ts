/**
 * The uncached workload: the service as `svapi serve` ships it (one worker per core) with the
 * answer cache off (SVAPI_CACHE_MB=0), asked with random parameters, next to the Node floor
 * (bench/refs/node-floor.ts) and pgbench running the statements the service sent for those same
 * parameters, back to back in each round. See bench/README.md.
 *
 * 1. A first service process, with bench/lib/capture-sql.js loaded, answers every sample once,
 *    one request at a time: its answer is the one every response under load must match, and the
 *    statements it sent to Postgres are what pgbench and the floor run for that sample.
 * 2. The floor is checked the same way: every sample's answer byte for byte, and its statements.
 * 3. The service, without the capture, is measured: each round runs every case (and the floor
 *    after a case that has one), then pgbench on the case's statements (-M prepared, as many
 *    clients as the service's connections).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { Rng } from '../../src/generate/rng';
import { backendsOfClient } from './database';
import { buildRequest, countRecords, type Binding, type DatasetProfile, type Operation } from './cases';
import { compressedSizes, ENCODINGS, inflatesTo, rawFetch, type Encoding, type Sizes } from './encoding';
import { load, measure, type Measurement, type MeasureOptions, type Sample } from './measure';
import { pgbenchWorkload, runPgbench, type PgbenchOptions, type PgbenchResult, type PgbenchWorkload, type Statement } from './pgbench';
import { readyOrigin, ROOT, type Child } from './proc';
import { failure, median, spread, type Spread } from './report';

export interface UncachedCase {
  name: string;
  operation: Operation;
  binding: Binding;
  /** The parameters of each sample. */
  samples: [string, string][][];
  /** Cases of one group send the same statements: one pgbench run per group and round serves them. */
  group: string;
  /** Also measured: the Node floor (bench/refs/node-floor.ts), with this target for service rps / floor rps. */
  floorTarget?: number;
}

/** Up to `n` of `values`, drawn without repeats by a seeded generator (the same sample every run). */
export function sampleOf<T>(values: readonly T[], n: number, seed: number, stream: string): T[] {
  const rng = new Rng(seed, stream);
  const pool = [...values];
  const count = Math.min(n, pool.length);
  for (let i = 0; i < count; i++) {
    const j = rng.int(i, pool.length - 1);
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, count);
}

/** Monster and player IDs of the database, sampled; the profile's common words. */
export async function uncachedCases(url: string, profile: DatasetProfile, seed: number): Promise<UncachedCase[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  let monsters: string[];
  let players: string[];
  try {
    monsters = (await client.query('SELECT monster_id::text AS id FROM monsters ORDER BY monster_id')).rows.map((r) => r.id as string);
    players = (await client.query('SELECT player_id::text AS id FROM players ORDER BY player_id')).rows.map((r) => r.id as string);
  } finally {
    await client.end();
  }
  const monsterSample = sampleOf(monsters, 500, seed, 'monsters').map((id): [string, string][] => [['MonsterID', id], ['NumberOfGlobals', '100']]);
  const playerSample = sampleOf(players, 2000, seed, 'players').map((id): [string, string][] => [['playerID', id], ['NumberOfGlobals', '100']]);
  const words = profile.commonWords.map((w): [string, string][] => [['SearchWord', w]]);
  const op = (name: string, p: string, record: string): Operation => ({ label: name, name, path: p, params: [], record });
  const monsterGlobals = op('GetMonsterGlobals', '/API/hunting.asmx', 'HuntingGlobal');
  const playerGlobals = op('GetPlayerGlobals', '/API/hunting.asmx', 'HuntingGlobal');
  return [
    { name: 'GetMonsterGlobals 100, random MonsterID / HTTP GET', operation: monsterGlobals, binding: 'HTTP GET', samples: monsterSample, group: 'monster globals', floorTarget: 1 },
    { name: 'GetMonsterGlobals 100, random MonsterID / SOAP 1.1', operation: monsterGlobals, binding: 'SOAP 1.1', samples: monsterSample, group: 'monster globals' },
    { name: 'GetPlayerGlobals 100, random playerID / HTTP GET', operation: playerGlobals, binding: 'HTTP GET', samples: playerSample, group: 'player globals' },
    { name: 'FindItems, random common word / HTTP GET', operation: op('FindItems', '/api/item.asmx', 'Item'), binding: 'HTTP GET', samples: words, group: 'items' },
    { name: 'GetWeapons, random common word / HTTP GET', operation: op('GetWeapons', '/api/weapons.asmx', 'Weapon'), binding: 'HTTP GET', samples: words, group: 'weapons' },
  ];
}

/** Statements on the data tables (not the credential lookup, not the answer cache's LISTEN). */
const DATA_TABLE = /\b(weapons|weapon_damage|items|monsters|players|hunting_globals)\b/;

export interface UncachedContext {
  dbUrl: string;
  key: { DevID: number; DevKey: string };
  /** The service's environment (the answer cache off is added here). */
  serviceEnv: NodeJS.ProcessEnv;
  start(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: Child; match: RegExpMatchArray }>;
  stop(child: Child): Promise<void>;
  opts: MeasureOptions;
  rounds: number;
  pgbench: Omit<PgbenchOptions, 'url' | 'dir' | 'seconds'>;
  /** Where the pgbench scripts and the captured statements go. */
  dir: string;
  /** Run the measured service under `node --cpu-prof`, writing its profile here. */
  profileDir?: string;
  /** The service's processes and pool per process (the floor runs with the same). */
  workers: number;
  poolPerProcess: number;
  log(s: string): void;
  progress(s: string): void;
}

export interface UncachedRound {
  service: Measurement;
  /** The group's pgbench run of this round. */
  pgbench: PgbenchResult;
  /** Service rps / pgbench tps; null: the round failed (an answer but 200, an error, a wrong body, or pgbench failed). */
  ratio: number | null;
  /** The Node floor, measured right after the service (cases with a floor). */
  floor?: Measurement;
  /** Service rps / floor rps, and floor rps / pgbench tps; null when either failed. */
  vsFloor?: number | null;
  floorVsPgbench?: number | null;
  /** Why the round gives no ratio. */
  failed: string[];
}

export interface UncachedResult {
  name: string;
  operation: string;
  binding: Binding;
  group: string;
  floorTarget?: number;
  samples: number;
  /** Mean records per answer. */
  records: number;
  sizes: Sizes;
  /** What the service sent for a sample asked with Accept-Encoding (bytes of the body), or null: it answered uncompressed. */
  onTheWire: Record<Encoding, number | null>;
  rounds: UncachedRound[];
  /** Service rps / pgbench tps, over the rounds that did not fail. */
  ratio: Spread | null;
  /** Service rps / floor rps and floor rps / pgbench tps, over the rounds that did not fail (cases with a floor). */
  vsFloor?: Spread | null;
  floorVsPgbench?: Spread | null;
  floorMedians?: { rps: number; p99: number; srvMsPerReq: number; pgMsPerReq: number | null };
  failedRounds: number;
  medians: { rps: number; p50: number; p99: number; srvMsPerReq: number; pgMsPerReq: number | null; pgbenchTps: number; pgbenchPgMsPerTx: number };
  pgbenchMode: PgbenchWorkload['mode'];
  pgbenchCommand?: string;
}

interface Prepared {
  c: UncachedCase;
  samples: Sample[];
  statements: Statement[][];
  records: number;
}

/** Seconds of load each server gets, per case, before the first round (at least --warmup). */
const SETTLE_SECONDS = 8;
const round2 = (x: number) => Math.round(x * 100) / 100;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const CAPTURE = path.join(ROOT, 'bench/lib/capture-sql.js');

/** The statements a process with capture-sql.js appended to `file` since the last call. */
function statementReader(file: string): { next(): Statement[]; close(): void } {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '');
  const fd = fs.openSync(file, 'r');
  let offset = 0;
  return {
    next() {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(size - offset);
      fs.readSync(fd, buf, 0, buf.length, offset);
      offset = size;
      return buf.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Statement);
    },
    close: () => fs.closeSync(fd),
  };
}

/** Every sample once on the capturing service: its answer and the data statements it sent. */
async function capture(ctx: UncachedContext, cases: UncachedCase[]): Promise<Prepared[]> {
  const file = path.join(ctx.dir, 'captured-sql.jsonl');
  const reader = statementReader(file);
  const env = { ...ctx.serviceEnv, SVAPI_CACHE_MB: '0', BENCH_SQL_CAPTURE: file };
  // One process: this pass only records answers and statements, one request at a time.
  const service = await ctx.start(['--require', CAPTURE, 'bin/svapi.js', 'serve', '--workers', '1'], env, /svapi listening on (http:\/\/\S+)/);
  const origin = service.match[1];
  try {
    const prepared: Prepared[] = [];
    for (const c of cases) {
      ctx.progress(`  ${c.name}: ${c.samples.length} samples ... `);
      const samples: Sample[] = [];
      const statements: Statement[][] = [];
      let records = 0;
      for (const params of c.samples) {
        const request = buildRequest({ ...c.operation, params }, c.binding, ctx.key.DevID, ctx.key.DevKey);
        reader.next();
        const res = await rawFetch(origin, request);
        if (res.status !== 200) throw new Error(`${c.name} ${JSON.stringify(params)}: status ${res.status}: ${res.body.subarray(0, 400).toString()}`);
        if (res.headers['content-encoding']) throw new Error(`${c.name}: compressed without Accept-Encoding (${res.headers['content-encoding']})`);
        samples.push({ request, expected: res.body });
        statements.push(reader.next().filter((s) => DATA_TABLE.test(s.text)));
        records += countRecords(res.body.toString(), c.operation.record);
      }
      prepared.push({ c, samples, statements, records: round2(records / samples.length) });
      ctx.log(`${(samples.reduce((n, s) => n + s.expected.length, 0) / samples.length / 1024).toFixed(1)} KB and ${round2(records / samples.length)} records on average, ${statements[0].length} statement(s) each`);
    }
    return prepared;
  } finally {
    reader.close();
    await ctx.stop(service.child);
  }
}

/** The floor's statement: the one statement the service sent for every sample (same text and name). */
function floorStatement(p: Prepared): { text: string; name: string | null } {
  const [first] = p.statements[0];
  const same = p.statements.every((s) => s.length === 1 && s[0].text === first.text && s[0].name === first.name);
  if (!first || !same) throw new Error(`${p.c.name}: the Node floor runs one statement per request, the service sent ${p.statements[0].length} or varying ones`);
  return { text: first.text, name: first.name ?? null };
}

/**
 * Starts the Node floor for `p` and checks it with capture-sql.js: every sample's answer must be
 * the service's, byte for byte, and its statements the service's (text, parameters, name). Then
 * starts it again without the capture, to be measured.
 */
async function startFloor(ctx: UncachedContext, p: Prepared): Promise<{ child: Child; origin: string }> {
  const dir = path.join(ctx.dir, 'floor');
  const statementFile = path.join(dir, 'statement.json');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(statementFile, `${JSON.stringify(floorStatement(p))}\n`);
  const args = ['bin/run-ts.js', 'bench/refs/node-floor.ts', statementFile, String(ctx.workers), String(ctx.poolPerProcess)];
  const env = { ...process.env, DATABASE_URL: ctx.dbUrl };
  const file = path.join(dir, 'captured-sql.jsonl');
  const reader = statementReader(file);
  ctx.progress(`  Node floor, ${p.c.name}: checking every sample's answer and statements ... `);
  const checking = await ctx.start(['--require', CAPTURE, ...args], { ...env, BENCH_SQL_CAPTURE: file }, /^\{"url"/);
  try {
    const origin = readyOrigin(checking.match);
    for (const [i, s] of p.samples.entries()) {
      reader.next();
      const res = await rawFetch(origin, s.request);
      if (res.status !== 200 || !res.body.equals(s.expected as Buffer)) {
        throw new Error(`Node floor, ${s.request.path}: status ${res.status}, ${res.body.length} bytes: not the service's ${s.expected.length} bytes`);
      }
      const sent = JSON.stringify(reader.next());
      if (sent !== JSON.stringify(p.statements[i])) throw new Error(`Node floor, ${s.request.path}: sent ${sent}, the service ${JSON.stringify(p.statements[i])}`);
    }
  } finally {
    reader.close();
    await ctx.stop(checking.child);
  }
  ctx.log(`${p.samples.length} the same`);
  const floor = await ctx.start(args, env, /^\{"url"/);
  return { child: floor.child, origin: readyOrigin(floor.match) };
}

/** For one sample: the body the service sends when asked with each Accept-Encoding (null: uncompressed). */
async function onTheWire(origin: string, sample: Sample): Promise<Record<Encoding, number | null>> {
  const out = {} as Record<Encoding, number | null>;
  for (const encoding of ENCODINGS) {
    const res = await rawFetch(origin, sample.request, { 'accept-encoding': encoding });
    const coding = res.headers['content-encoding'];
    if (res.status !== 200) throw new Error(`Accept-Encoding ${encoding}: status ${res.status}`);
    if (!coding || coding === 'identity') {
      if (!res.body.equals(sample.expected as Buffer)) throw new Error(`Accept-Encoding ${encoding}: a different uncompressed answer`);
      out[encoding] = null;
    } else {
      if (!inflatesTo(sample.expected as Buffer, coding)(res.body)) throw new Error(`Accept-Encoding ${encoding}: the ${coding} answer does not inflate to the plain one`);
      out[encoding] = res.body.length;
    }
  }
  return out;
}

/** One round of a case: its ratios, or none when the service, the floor or pgbench failed. */
export function uncachedRound(service: Measurement, pgbench: PgbenchResult, floor?: Measurement): UncachedRound {
  const failed = [
    ...(failure(service) ? [`service: ${failure(service)}`] : []),
    ...(floor && failure(floor) ? [`floor: ${failure(floor)}`] : []),
    ...(pgbench.failed ? [`pgbench: ${pgbench.failed} failed`] : []),
  ];
  const serviceOk = !failure(service);
  const floorOk = floor !== undefined && !failure(floor);
  return {
    service,
    pgbench,
    ratio: serviceOk && !pgbench.failed ? round3(service.rps / pgbench.tps) : null,
    ...(floor ? {
      floor,
      vsFloor: serviceOk && floorOk ? round3(service.rps / floor.rps) : null,
      floorVsPgbench: floorOk && !pgbench.failed ? round3(floor.rps / pgbench.tps) : null,
    } : {}),
    failed,
  };
}

const ratioSpread = (values: (number | null | undefined)[]) => spread(values.filter((v): v is number => typeof v === 'number'));

export async function runUncached(ctx: UncachedContext, cases: UncachedCase[]): Promise<UncachedResult[]> {
  ctx.log(`\nuncached, random parameters: svapi serve as shipped (${ctx.workers} processes), SVAPI_CACHE_MB=0, ${ctx.opts.connections} connections; `
    + `pgbench -M ${ctx.pgbench.protocol} -c ${ctx.pgbench.clients} -j ${ctx.pgbench.threads} on the statements the service sent for the same samples`);
  ctx.log('capturing every sample\'s answer and statements (a service process with bench/lib/capture-sql.js, one request at a time):');
  const prepared = await capture(ctx, cases);

  const workloads = new Map<string, PgbenchWorkload>();
  for (const p of prepared) {
    if (!workloads.has(p.c.group)) workloads.set(p.c.group, pgbenchWorkload(p.statements));
  }
  fs.writeFileSync(path.join(ctx.dir, 'workloads.json'), `${JSON.stringify(Object.fromEntries(workloads), null, 2)}\n`);

  const floors = new Map<string, { child: Child; origin: string }>();
  const nodeArgs = ctx.profileDir ? ['--cpu-prof', '--cpu-prof-dir', ctx.profileDir] : [];
  try {
    for (const p of prepared) {
      if (p.c.floorTarget !== undefined) floors.set(p.c.name, await startFloor(ctx, p));
    }
    const service = await ctx.start([...nodeArgs, 'bin/svapi.js', 'serve'], { ...ctx.serviceEnv, SVAPI_CACHE_MB: '0' }, /svapi listening on (http:\/\/\S+)/);
    const origin = service.match[1];
    try {
      const wire = new Map<string, Record<Encoding, number | null>>();
      for (const p of prepared) {
        // The measured service gives the captured answer too (and tells what it compresses).
        const res = await rawFetch(origin, p.samples[0].request);
        if (res.status !== 200 || !res.body.equals(p.samples[0].expected as Buffer)) throw new Error(`${p.c.name}: the measured service answers differently`);
        wire.set(p.c.name, await onTheWire(origin, p.samples[0]));
      }
      const pg = (seconds: number, group: string): Promise<PgbenchResult> => runPgbench(workloads.get(group)!, {
        ...ctx.pgbench, url: ctx.dbUrl, dir: path.join(ctx.dir, group.replace(/\W+/g, '-')), seconds,
      });
      // pgbench's warm-up, once per group (it also proves the scripts run).
      const warm = Math.max(1, Math.min(2, ctx.opts.warmupSeconds));
      ctx.progress(`pgbench warm-up, ${warm} s per group ... `);
      for (const group of workloads.keys()) await pg(warm, group);
      ctx.log('done');

      // Both servers settle before the first round: under this load the service's CPU per request
      // fell from about 2 ms to 1 ms over its first 8 s (the JIT optimized some 750 functions a
      // process in that time: --trace-opt), so a 2 s warm-up measured the first round's service
      // half-warmed, against a floor that has little code to warm.
      const settle = Math.max(SETTLE_SECONDS, ctx.opts.warmupSeconds);
      ctx.progress(`settling, ${settle} s per case on the service and on the floor ... `);
      for (const p of prepared) {
        await load({ origin, samples: p.samples }, ctx.opts.connections, settle);
        const floor = floors.get(p.c.name);
        if (floor) await load({ origin: floor.origin, samples: p.samples }, ctx.opts.connections, settle);
      }
      ctx.log('done');

      const rounds = new Map<string, UncachedRound[]>(prepared.map((p) => [p.c.name, []]));
      const groups = [...new Set(prepared.map((p) => p.c.group))];
      const line = (m: Measurement) => `${m.rps.toFixed(0)} rps, p50 ${m.latencyMs.p50} ms, p99 ${m.latencyMs.p99} ms, ${m.cpuMsPerRequest.server.toFixed(2)} srv ms/req (CPU: the service's processes ${m.cpuPctByProcess.join(' / ')}%, Postgres ${m.cpuPct.postgres}%, the load generator ${m.cpuPct.loadGenerator}%, the machine ${m.cpuPct.machine}%)${failure(m) ? `  FAILED: ${failure(m)}` : ''}`;
      for (let r = 1; r <= ctx.rounds; r++) {
        for (const group of groups) {
          const members = prepared.filter((p) => p.c.group === group);
          const measured: [Prepared, Measurement, Measurement | undefined][] = [];
          for (const p of members) {
            const floor = floors.get(p.c.name);
            const onService = async () => {
              ctx.progress(`[uncached round ${r}/${ctx.rounds}] ${p.c.name} ... `);
              const m = await measure({ origin, samples: p.samples }, service.child.pid, ctx.opts, () => backendsOfClient(ctx.dbUrl, service.child.pid));
              ctx.log(line(m));
              return m;
            };
            const onFloor = async () => {
              ctx.progress(`[uncached round ${r}/${ctx.rounds}] Node floor, same samples ... `);
              const f = await measure({ origin: floor!.origin, samples: p.samples }, floor!.child.pid, ctx.opts, () => backendsOfClient(ctx.dbUrl, floor!.child.pid));
              ctx.log(line(f));
              return f;
            };
            // The service first in odd rounds, the floor first in even ones: neither always follows pgbench.
            let m: Measurement;
            let f: Measurement | undefined;
            if (floor && r % 2 === 0) {
              f = await onFloor();
              m = await onService();
            } else {
              m = await onService();
              if (floor) f = await onFloor();
            }
            if (f) ctx.log(`[uncached round ${r}/${ctx.rounds}] service / floor ${(m.rps / f.rps).toFixed(3)}`);
            measured.push([p, m, f]);
          }
          ctx.progress(`[uncached round ${r}/${ctx.rounds}] pgbench, ${group} ... `);
          const b = await pg(ctx.opts.durationSeconds, group);
          ctx.log(`${b.tps.toFixed(0)} tps, ${b.pgCpuMsPerTx.toFixed(2)} pg ms/tx${b.failed ? `, ${b.failed} FAILED` : ''}; service / pgbench ${measured.map(([, m]) => (m.rps / b.tps).toFixed(3)).join(', ')}`);
          for (const [p, m, f] of measured) rounds.get(p.c.name)!.push(uncachedRound(m, b, f));
        }
      }

      return prepared.map((p) => {
        const rs = rounds.get(p.c.name)!;
        const med = (f: (x: UncachedRound) => number) => round2(median(rs.map(f)));
        const pgReq = rs.map((x) => x.service.cpuMsPerRequest.postgres).filter((x): x is number => x !== null);
        const floorRounds = rs.map((x) => x.floor).filter((x): x is Measurement => x !== undefined);
        const fmed = (f: (x: Measurement) => number) => round2(median(floorRounds.map(f)));
        const floorPg = floorRounds.map((x) => x.cpuMsPerRequest.postgres).filter((x): x is number => x !== null);
        return {
          name: p.c.name,
          operation: p.c.operation.name,
          binding: p.c.binding,
          group: p.c.group,
          floorTarget: p.c.floorTarget,
          samples: p.samples.length,
          records: p.records,
          sizes: compressedSizes(p.samples.map((s) => s.expected as Buffer)),
          onTheWire: wire.get(p.c.name)!,
          rounds: rs,
          ratio: ratioSpread(rs.map((x) => x.ratio)),
          ...(floorRounds.length ? {
            vsFloor: ratioSpread(rs.map((x) => x.vsFloor)),
            floorVsPgbench: ratioSpread(rs.map((x) => x.floorVsPgbench)),
            floorMedians: {
              rps: fmed((x) => x.rps), p99: fmed((x) => x.latencyMs.p99), srvMsPerReq: fmed((x) => x.cpuMsPerRequest.server),
              pgMsPerReq: floorPg.length ? round2(median(floorPg)) : null,
            },
          } : {}),
          failedRounds: rs.filter((x) => x.failed.length).length,
          medians: {
            rps: med((x) => x.service.rps),
            p50: med((x) => x.service.latencyMs.p50),
            p99: med((x) => x.service.latencyMs.p99),
            srvMsPerReq: med((x) => x.service.cpuMsPerRequest.server),
            pgMsPerReq: pgReq.length ? round2(median(pgReq)) : null,
            pgbenchTps: med((x) => x.pgbench.tps),
            pgbenchPgMsPerTx: med((x) => x.pgbench.pgCpuMsPerTx),
          },
          pgbenchMode: workloads.get(p.c.group)!.mode,
          pgbenchCommand: rs[0]?.pgbench.command,
        };
      });
    } finally {
      await ctx.stop(service.child);
    }
  } finally {
    for (const f of floors.values()) await ctx.stop(f.child);
  }
}
