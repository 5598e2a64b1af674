/**
 * The uncached workload (issue 15): one service process with the answer cache off
 * (SVAPI_CACHE_MB=0), asked with random parameters, next to pgbench running the statements the
 * service sent for those same parameters, back to back in each round. See bench/README.md.
 *
 * 1. A first service process, with bench/lib/capture-sql.js loaded, answers every sample once,
 *    one request at a time: its answer is the one every response under load must match, and the
 *    statements it sent to Postgres are what pgbench runs for that sample.
 * 2. A second process, without the capture, is measured: each round runs every case, then
 *    pgbench on the case's statements (-M prepared, the pool's size of clients).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { Rng } from '../../src/generate/rng';
import { backendsOfClient } from './database';
import { buildRequest, countRecords, type Binding, type DatasetProfile, type Operation } from './cases';
import { compressedSizes, ENCODINGS, inflatesTo, rawFetch, type Encoding, type Sizes } from './encoding';
import { measure, type Measurement, type MeasureOptions, type Sample } from './measure';
import { pgbenchWorkload, runPgbench, type PgbenchOptions, type PgbenchResult, type PgbenchWorkload, type Statement } from './pgbench';
import { ROOT, type Child } from './proc';
import { median, spread, type Spread } from './report';

export interface UncachedCase {
  name: string;
  operation: Operation;
  binding: Binding;
  /** The parameters of each sample. */
  samples: [string, string][][];
  /** Cases of one group send the same statements: one pgbench run per group and round serves them. */
  group: string;
  /** The target of the ratio to pgbench, if the issue sets one. */
  target?: number;
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
    { name: 'GetMonsterGlobals 100, random MonsterID / HTTP GET', operation: monsterGlobals, binding: 'HTTP GET', samples: monsterSample, group: 'monster globals', target: 0.8 },
    { name: 'GetMonsterGlobals 100, random MonsterID / SOAP 1.1', operation: monsterGlobals, binding: 'SOAP 1.1', samples: monsterSample, group: 'monster globals' },
    { name: 'GetPlayerGlobals 100, random playerID / HTTP GET', operation: playerGlobals, binding: 'HTTP GET', samples: playerSample, group: 'player globals', target: 0.8 },
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
  log(s: string): void;
  progress(s: string): void;
}

export interface UncachedRound {
  service: Measurement;
  /** The group's pgbench run of this round. */
  pgbench: PgbenchResult;
  ratio: number;
}

export interface UncachedResult {
  name: string;
  operation: string;
  binding: Binding;
  group: string;
  target?: number;
  samples: number;
  /** Mean records per answer. */
  records: number;
  sizes: Sizes;
  /** What the service sent for a sample asked with Accept-Encoding (bytes of the body), or null: it answered uncompressed. */
  onTheWire: Record<Encoding, number | null>;
  rounds: UncachedRound[];
  /** Service rps / pgbench tps, by round. */
  ratio: Spread | null;
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

const round2 = (x: number) => Math.round(x * 100) / 100;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Every sample once on the capturing service: its answer and the data statements it sent. */
async function capture(ctx: UncachedContext, cases: UncachedCase[]): Promise<Prepared[]> {
  const file = path.join(ctx.dir, 'captured-sql.jsonl');
  fs.mkdirSync(ctx.dir, { recursive: true });
  fs.writeFileSync(file, '');
  const env = { ...ctx.serviceEnv, SVAPI_CACHE_MB: '0', BENCH_SQL_CAPTURE: file };
  const service = await ctx.start(['--require', path.join(ROOT, 'bench/lib/capture-sql.js'), 'bin/svapi.js', 'serve', '--workers', '1'], env, /svapi listening on (http:\/\/\S+)/);
  const origin = service.match[1];
  const fd = fs.openSync(file, 'r');
  let offset = 0;
  const newStatements = (): Statement[] => {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(size - offset);
    fs.readSync(fd, buf, 0, buf.length, offset);
    offset = size;
    return buf.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Statement);
  };
  try {
    const prepared: Prepared[] = [];
    for (const c of cases) {
      ctx.progress(`  ${c.name}: ${c.samples.length} samples ... `);
      const samples: Sample[] = [];
      const statements: Statement[][] = [];
      let records = 0;
      for (const params of c.samples) {
        const request = buildRequest({ ...c.operation, params }, c.binding, ctx.key.DevID, ctx.key.DevKey);
        newStatements();
        const res = await rawFetch(origin, request);
        if (res.status !== 200) throw new Error(`${c.name} ${JSON.stringify(params)}: status ${res.status}: ${res.body.subarray(0, 400).toString()}`);
        if (res.headers['content-encoding']) throw new Error(`${c.name}: compressed without Accept-Encoding (${res.headers['content-encoding']})`);
        samples.push({ request, expected: res.body });
        statements.push(newStatements().filter((s) => DATA_TABLE.test(s.text)));
        records += countRecords(res.body.toString(), c.operation.record);
      }
      prepared.push({ c, samples, statements, records: round2(records / samples.length) });
      ctx.log(`${(samples.reduce((n, s) => n + s.expected.length, 0) / samples.length / 1024).toFixed(1)} KB and ${round2(records / samples.length)} records on average, ${statements[0].length} statement(s) each`);
    }
    return prepared;
  } finally {
    fs.closeSync(fd);
    await ctx.stop(service.child);
  }
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

export async function runUncached(ctx: UncachedContext, cases: UncachedCase[]): Promise<UncachedResult[]> {
  ctx.log(`\nuncached, random parameters: one process, SVAPI_CACHE_MB=0, ${ctx.opts.connections} connections; `
    + `pgbench -M ${ctx.pgbench.protocol} -c ${ctx.pgbench.clients} -j ${ctx.pgbench.threads} on the statements the service sent for the same samples`);
  ctx.log('capturing every sample\'s answer and statements (a service process with bench/lib/capture-sql.js, one request at a time):');
  const prepared = await capture(ctx, cases);

  const workloads = new Map<string, PgbenchWorkload>();
  for (const p of prepared) {
    if (!workloads.has(p.c.group)) workloads.set(p.c.group, pgbenchWorkload(p.statements));
  }
  fs.writeFileSync(path.join(ctx.dir, 'workloads.json'), `${JSON.stringify(Object.fromEntries(workloads), null, 2)}\n`);

  const nodeArgs = ctx.profileDir ? ['--cpu-prof', '--cpu-prof-dir', ctx.profileDir] : [];
  const service = await ctx.start([...nodeArgs, 'bin/svapi.js', 'serve', '--workers', '1'], { ...ctx.serviceEnv, SVAPI_CACHE_MB: '0' }, /svapi listening on (http:\/\/\S+)/);
  const origin = service.match[1];
  try {
    const wire = new Map<string, Record<Encoding, number | null>>();
    for (const p of prepared) {
      // The measured process gives the captured answer too (and tells what it compresses).
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

    const rounds = new Map<string, UncachedRound[]>(prepared.map((p) => [p.c.name, []]));
    const groups = [...new Set(prepared.map((p) => p.c.group))];
    for (let r = 1; r <= ctx.rounds; r++) {
      for (const group of groups) {
        const members = prepared.filter((p) => p.c.group === group);
        const measured: [Prepared, Measurement][] = [];
        for (const p of members) {
          ctx.progress(`[uncached round ${r}/${ctx.rounds}] ${p.c.name} ... `);
          const m = await measure({ origin, samples: p.samples }, service.child.pid, ctx.opts, () => backendsOfClient(ctx.dbUrl, service.child.pid));
          measured.push([p, m]);
          ctx.log(`${m.rps.toFixed(0)} rps, p50 ${m.latencyMs.p50} ms, p99 ${m.latencyMs.p99} ms, ${m.cpuMsPerRequest.server.toFixed(2)} srv ms/req${m.flagged ? '  FLAGGED' : ''}`);
        }
        ctx.progress(`[uncached round ${r}/${ctx.rounds}] pgbench, ${group} ... `);
        const b = await pg(ctx.opts.durationSeconds, group);
        ctx.log(`${b.tps.toFixed(0)} tps, ${b.pgCpuMsPerTx.toFixed(2)} pg ms/tx${b.failed ? `, ${b.failed} FAILED` : ''}; ratio ${measured.map(([, m]) => (m.rps / b.tps).toFixed(3)).join(', ')}`);
        for (const [p, m] of measured) rounds.get(p.c.name)!.push({ service: m, pgbench: b, ratio: round3(m.rps / b.tps) });
      }
    }

    return prepared.map((p) => {
      const rs = rounds.get(p.c.name)!;
      const med = (f: (x: UncachedRound) => number) => round2(median(rs.map(f)));
      const pgReq = rs.map((x) => x.service.cpuMsPerRequest.postgres).filter((x): x is number => x !== null);
      return {
        name: p.c.name,
        operation: p.c.operation.name,
        binding: p.c.binding,
        group: p.c.group,
        target: p.c.target,
        samples: p.samples.length,
        records: p.records,
        sizes: compressedSizes(p.samples.map((s) => s.expected as Buffer)),
        onTheWire: wire.get(p.c.name)!,
        rounds: rs,
        ratio: spread(rs.map((x) => x.ratio)),
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
}
