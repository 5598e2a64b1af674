// `svapi serve` as shipped (default workers, pool, overload guards, access log at info, limits on;
// only the per-DevID rate limit lifted, so one key can drive the load) under load from autocannon
// on loopback: below capacity every answer is 200; far above it (1,024 connections of uncached
// 1,000-item FindItems) it sheds cleanly: 200 or 503 with Retry-After, no connection error, no
// caller queued for long (a wait for a connection is at most 1 s), /healthz answering meanwhile,
// bounded memory, and served again at once after. These run at the DEFAULT guards: a default made 1,000 times tighter refuses below
// capacity, one made 1,000 times looser sheds nothing above it.

import fs from 'node:fs';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { spawnServe, type SpawnedServe } from './support/spawn-serve';
import { freshDatabase, type TestDatabase } from './support/db';
import { createKey } from '../src/auth/keys';
import { envelope, soapContentType, HUNTING } from './support/bindings';
import { metricSum } from './support/limits';
import { holdMachine } from './support/machine-lock';

/** Items whose name holds ITEM_WORD: FindItems(ITEM_WORD) answers 1,000 of them (SVAPI_MAX_RESULTS). */
const ITEM_WORD = 'Loadtest';
const MONSTERS = 36; // seeds/data/monsters.csv

let db: TestDatabase;
let key: { devId: number; devKey: string };
let cached: SpawnedServe;
let uncached: SpawnedServe;
let letGo: (() => void) | undefined;

// Below capacity means this machine's capacity: no other test file's load beside these.
beforeAll(async () => {
  letGo = await holdMachine();
}, 600_000);
beforeAll(async () => {
  db = await freshDatabase({ seed: true });
  await db.knex.raw(`INSERT INTO items (item_id, item_name, description, item_picture_url, tt_value, category_id)
    SELECT 900000 + i, '${ITEM_WORD} gadget ' || i, 'A gadget for the load test, number ' || i, 'https://img.example.com/items/' || i || '.png', 1.25 + i, (SELECT min(category_id) FROM item_categories)
    FROM generate_series(1, 1200) AS i`);
  key = await createKey(db.knex, 'load');
  const shipped = {
    SVAPI_RATE_LIMIT: '2000000000',
    // The service's default pool, not the test helper's. The test's embedded database (one PGlite
    // session) takes 16 connections from both services together: 3 per worker there.
    SVAPI_DB_POOL_MAX: db.embedded ? '3' : undefined,
  };
  const over = { db, key };
  [cached, uncached] = await Promise.all([
    spawnServe([], shipped, { over }),
    spawnServe([], { ...shipped, SVAPI_CACHE_MB: '0' }, { over }),
  ]);
}, 120_000);
afterAll(async () => {
  await cached?.stop();
  await uncached?.stop();
  await db?.destroy();
  letGo?.();
});

interface Load {
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  maxLatencyMs: number;
}

/** `connections` keep-alive connections sending `request()` for `seconds` (bodies are not kept: the client must not be the bottleneck). */
async function load(base: string, connections: number, seconds: number, request: () => autocannon.Request): Promise<Load> {
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [{ setupRequest: (r) => ({ ...r, ...request() }) }],
  });
  const statuses: Record<string, number> = {};
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) statuses[status] = (stats as { count?: number }).count ?? 0;
  if (process.env.SVAPI_TEST_VERBOSE) console.log(JSON.stringify({ statuses, latency: result.latency, errors: result.errors }));
  return { statuses, errors: result.errors, timeouts: result.timeouts, maxLatencyMs: result.latency.max };
}

const auth = () => `DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}`;
const getMonster = () => ({ method: 'GET' as const, path: `${HUNTING}/GetMonster?${auth()}&MonsterID=1` });

test.each([16, 64, 512])('cached GetMonster over HTTP GET at %i connections: every answer 200', async (connections) => {
  const r = await load(cached.url, connections, 2, getMonster);
  expect({ statuses: Object.keys(r.statuses), errors: r.errors, timeouts: r.timeouts }).toEqual({ statuses: ['200'], errors: 0, timeouts: 0 });
  expect(r.statuses[200]).toBeGreaterThan(0);
}, 30_000);

test('cached GetMonster over SOAP 1.1 at 64 connections: every answer 200', async () => {
  const body = envelope('1.1', 'GetMonster', { DevID: String(key.devId), DevKey: key.devKey, MonsterID: '1' });
  const r = await load(cached.url, 64, 2, () => ({
    method: 'POST', path: HUNTING, body, headers: { 'Content-Type': soapContentType('1.1'), SOAPAction: '"SVAPI/GetMonster"' },
  }));
  expect({ statuses: Object.keys(r.statuses), errors: r.errors, timeouts: r.timeouts }).toEqual({ statuses: ['200'], errors: 0, timeouts: 0 });
}, 30_000);

// PGlite runs one statement at a time for every connection: its capacity is far lower.
const UNCACHED_CONNECTIONS = process.env.DATABASE_URL ? 64 : 8;

test(`uncached GetMonsterGlobals(100) of random monsters, cache off, at ${UNCACHED_CONNECTIONS} connections: every answer 200`, async () => {
  const globals = (connections: number, seconds: number) => load(uncached.url, connections, seconds, () => ({
    method: 'GET', path: `${HUNTING}/GetMonsterGlobals?${auth()}&MonsterID=${1 + Math.floor(Math.random() * MONSTERS)}&NumberOfGlobals=100`,
  }));
  // Warm first, as the bench does: the uncached service has served nothing yet, and its pools open
  // their connections (and prepare their statements) on first use. Hit cold by 64 connections at
  // once, on the slower machine of 2026-11-28, it refused 9-18 calls of some 1,450 in 4 runs of 8
  // for database waits in the first second; warm, none (docs/performance.md, "thirteenth pass").
  const warm = await globals(8, 1);
  expect(Object.keys(warm.statuses)).toEqual(['200']);
  const r = await globals(UNCACHED_CONNECTIONS, 3);
  expect({ statuses: Object.keys(r.statuses), errors: r.errors, timeouts: r.timeouts }).toEqual({ statuses: ['200'], errors: 0, timeouts: 0 });
  expect(r.statuses[200]).toBeGreaterThan(0);
}, 30_000);

/** Peak resident memory of a process so far (Linux), in MB. */
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/**
 * GET /healthz every 200 ms on a connection opened before the load, from a process of its own
 * (as a monitor probes): timed in this process, it would also count this process's own lateness
 * while it reads 1,024 large answers. The child says `ready` after its first answer and, when its
 * standard input closes, prints the slowest answer and the failures as JSON.
 */
const HEALTHZ_PROBE = `
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stopped = false, slowest = 0, failures = 0;
const once = () => new Promise((resolve) => {
  const started = performance.now();
  http.get(process.argv[1] + '/healthz', { agent }, (res) => {
    res.resume();
    res.on('end', () => { slowest = Math.max(slowest, performance.now() - started); if (res.statusCode !== 200) failures++; resolve(); });
  }).on('error', () => { failures++; resolve(); });
});
process.stdin.resume();
process.stdin.on('end', () => { stopped = true; });
(async () => {
  await once();
  process.stdout.write('ready\\n');
  while (!stopped) {
    await once();
    await new Promise((r) => setTimeout(r, 200));
  }
  agent.destroy();
  process.stdout.write(JSON.stringify({ slowestMs: slowest, failures }) + '\\n');
})();
`;

/** The healthz probe (above) in its own process, and the load's own call every 200 ms on another connection (the Retry-After of each 503). */
function probe(base: string, path: string) {
  const child = spawn(process.execPath, ['-e', HEALTHZ_PROBE, base], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.startsWith('ready\n')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`healthz probe exited (${code}) before its first answer: ${out}`)));
  });
  const exited = once(child, 'exit');
  let stopped = false;
  let failures = 0;
  const refusals: (string | undefined)[] = [];
  const callAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const call = () => new Promise<void>((resolve) => {
    http.get(`${base}${path}`, { agent: callAgent }, (res) => {
      if (res.statusCode === 503) refusals.push(res.headers['retry-after'] as string | undefined);
      res.resume();
      res.on('end', () => resolve());
    }).on('error', () => { failures++; resolve(); });
  });
  const loop = (async () => {
    while (!stopped) {
      await call();
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    first: ready,
    stop: async () => {
      stopped = true;
      child.stdin.end();
      await Promise.all([loop, exited]);
      callAgent.destroy();
      const probed = JSON.parse(out.slice('ready\n'.length)) as { slowestMs: number; failures: number };
      return { slowestMs: probed.slowestMs, failures: failures + probed.failures, refusals };
    },
  };
}

test('1,024 connections of uncached 1,000-item FindItems: 200 or 503 with Retry-After, no connection error, /healthz answers, under 300 MB, then served again', async () => {
  const path = `/api/item.asmx/FindItems?${auth()}&SearchWord=${ITEM_WORD}`;
  const probes = probe(uncached.url, path);
  await probes.first;
  const r = await load(uncached.url, 1024, 5, () => ({ method: 'GET', path }));
  const healthz = await probes.stop();
  if (process.env.SVAPI_TEST_VERBOSE) {
    const lines = uncached.log.filter((l) => l.msg === 'request' && l.operation === 'FindItems');
    const ms = lines.map((l) => l.durationMs as number).sort((a, b) => a - b);
    console.log(JSON.stringify({ healthz, server: { n: ms.length, p50: ms[ms.length >> 1], p99: ms[Math.floor(ms.length * 0.99)], max: ms.at(-1) }, notes: uncached.log.filter((l) => (l.level as number) >= 40) }));
  }

  expect(Object.keys(r.statuses).filter((s) => s !== '200' && s !== '503')).toEqual([]);
  expect(r.statuses[200]).toBeGreaterThan(0);
  // Whether it refuses depends on what saturates first: the database queue (refusals), or here,
  // with autocannon reading 1,024 large answers on the same two cores, often the client itself.
  expect({ errors: r.errors, timeouts: r.timeouts }).toEqual({ errors: 0, timeouts: 0 });
  expect(healthz.refusals.filter((retryAfter) => retryAfter !== '1')).toEqual([]);
  expect(healthz.failures).toBe(0);

  const workers = [...new Set(uncached.log.filter((l) => l.msg === 'request').map((l) => l.pid as number))];
  expect(workers.length).toBe(2);
  for (const pid of workers) expect(peakRssMb(pid)).toBeLessThan(300);

  // Served again once the load stops: at once when the service kept up, else as soon as the
  // calls its gone clients left queued are through (each 503 says Retry-After: 1, as a client retries).
  let after = await fetch(`${uncached.url}${path}`);
  for (let tries = 1; after.status === 503 && after.headers.get('retry-after') === '1' && tries < 30; tries++) {
    await after.arrayBuffer();
    await new Promise((r) => setTimeout(r, 1_000));
    after = await fetch(`${uncached.url}${path}`);
  }
  expect(after.status).toBe(200);
  expect((await after.text()).match(/<Item>/g)?.length).toBe(1000);

  // Counted as overload refusals (for waiting too long for a database connection), logged as an overload, not per call.
  const metrics = await (await fetch(`${uncached.url}/metrics`)).text();
  expect(metricSum(metrics, 'svapi_overload_refused_total')).toBeGreaterThanOrEqual(r.statuses[503] ?? 0);
  expect(uncached.log.filter((l) => (l.level as number) >= 50)).toEqual([]);
  expect(uncached.log.filter((l) => l.msg === 'overloaded: refusing operation calls with ServiceUnavailable').length).toBeLessThanOrEqual(2);

  // Wall-clock last, with margins for a loaded two-core machine where autocannon shares the cores
  // with both workers and Postgres. The guards bound a call's wait for a connection to 1 s and keep
  // the loop within 0.5 s; what an answered call then takes (1,000 rows read, written and sent,
  // 20 at once per host) they do not bound: measured here up to 5 s end to end (the target is 2 s).
  // Without shedding the callers would queue for the whole run (and no 503 above).
  expect(r.maxLatencyMs).toBeLessThan(8_000);
  expect(healthz.slowestMs).toBeLessThan(1_000);
}, 60_000);

/**
 * Once the service refuses calls (its svapi_overload_refused_total in /metrics grows: it is
 * overloaded; a connection of its own that was never refused is no longer the likely one to be,
 * since the clients that ask again at once are held as early retries), opens `count` new
 * connections at once, each sending one GET /healthz (Connection: close), and prints
 * as JSON the slowest time from connecting to the first byte of the answer, the answers that were
 * not 200 or never came, and whether the overload was seen at all. A process of its own, so that
 * its times are the service's, not those of this process's own load.
 */
const BURST = `
const http = require('node:http');
const net = require('node:net');
const [base, count] = [process.argv[1], Number(process.argv[2])];
const { hostname, port } = new URL(base);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const refused = () => new Promise((resolve) => {
  http.get(base + '/metrics', { agent }, (res) => {
    let text = '';
    res.setEncoding('utf8').on('data', (d) => { text += d; });
    res.on('end', () => resolve(text.split('\\n').filter((l) => l.startsWith('svapi_overload_refused_total{'))
      .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)));
  }).on('error', () => resolve(-1));
});
(async () => {
  const until = performance.now() + 10_000;
  let overloaded = false;
  // A failed read is -1: the count to compare with is the first that was read.
  let before = -1;
  while (before < 0 && performance.now() < until) before = await refused();
  while (!overloaded && before >= 0 && performance.now() < until) overloaded = (await refused()) > before;
  agent.destroy();
  let slowest = 0, failures = 0, left = count;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    let first = '';
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.end('GET /healthz HTTP/1.1\\r\\nHost: burst\\r\\nConnection: close\\r\\n\\r\\n'));
    socket.setEncoding('latin1');
    socket.once('data', (chunk) => { first = chunk; slowest = Math.max(slowest, performance.now() - started); });
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => {
      if (!first.startsWith('HTTP/1.1 200')) failures++;
      if (--left === 0) process.stdout.write(JSON.stringify({ overloaded, slowestMs: slowest, failures }) + '\\n');
    });
  }
})();
`;

test('a burst of 256 new connections during an overload of 1,000-item answers: each is taken in and answered within 8 s', async () => {
  const path = `/api/item.asmx/FindItems?${auth()}&SearchWord=${ITEM_WORD}`;
  // Clients that ask again at once when refused, in threads of their own so that they keep the
  // workers' event loops busy whatever this thread does.
  const overload = autocannon({ url: uncached.url, connections: 1024, duration: 10, workers: 2, requests: [{ method: 'GET', path }] });
  const child = spawn(process.execPath, ['-e', BURST, uncached.url, '256'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; });
  await once(child, 'exit');
  const loaded = await overload;
  const burst = JSON.parse(out) as { overloaded: boolean; slowestMs: number; failures: number };
  if (process.env.SVAPI_TEST_VERBOSE) console.log(JSON.stringify({ burst, load: { statuses: loaded.statusCodeStats, latency: loaded.latency } }));

  expect(burst.overloaded).toBe(true);
  expect(burst.failures).toBe(0);
  // On one listening handle per worker, such a burst was taken in at 4 to 30 connections a second
  // while the loops ran long turns (src/listen-handles.ts): the last waited in the kernel's queue
  // until the load ended (10.4 s of a 10 s load). On 17, 2.2 to 4.9 s; on 65, 1.0 to 1.1 s, as
  // the load (sharing the two cores with the service) keeps the loops' turns long; margin for a
  // busier machine.
  expect(burst.slowestMs).toBeLessThan(8_000);
}, 60_000);
