// Two instances (`svapi serve --workers 2` each) behind HAProxy, on one Postgres database and one
// Redis, as docker-compose.yml runs them: the limits count once through the balancer, a load is
// seen by both instances as it commits, an instance stopped under load loses no request (it
// drains: /readyz 503 for SVAPI_DRAIN_MS while still serving, then stops), and Redis stopped does
// not stop the service. Needs Debian's haproxy and redis-server (CI installs both; elsewhere the
// file is skipped with a message) and a Postgres server: LISTEN/NOTIFY is what it checks, which
// the embedded database lacks, so runs without DATABASE_URL leave it out (test/end-to-end.js).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKey } from '../src/auth/keys';
import { loadDataset } from '../src/load';
import { seed } from '../seeds/sample';
import { freshDatabase, type TestDatabase } from './support/db';
import { spawnServe, type SpawnedServe } from './support/spawn-serve';
import { metricSum, tally, type Credential } from './support/limits';
import { eventually } from './support/wait';
import { RedisServer, redisServerInstalled } from './support/redis-server';
import { Haproxy, haproxyInstalled, SERVED_BY } from './support/haproxy';

const inCi = process.env.CI === 'true';
const missing = [...(haproxyInstalled ? [] : ['haproxy']), ...(redisServerInstalled ? [] : ['redis-server'])];
// Longer than two failed checks 200 ms apart take, even when a check is slow (up to 1 s).
const DRAIN_MS = 5_000;
/** The version check is made too rare to explain a load seen within LOAD_SEEN_MS: only LISTEN/NOTIFY can. */
const CACHE_CHECK_MS = 60_000;
const LOAD_SEEN_MS = 15_000;

const redis = new RedisServer();
let lb: Haproxy;
let db: TestDatabase;
let a: SpawnedServe;
let b: SpawnedServe;
/** Keys for the requests: the streams use each for 90 requests, under the limit of 100 a minute. */
let keys: Credential[] = [];
/** Requests the streams have sent, over all of them (the key a request uses follows from it). */
let streamed = 0;
// Each key carries 90 streamed requests (under SVAPI_RATE_LIMIT): enough for every stream here,
// the drain's included, however fast the balancer answers.
const STREAM_KEYS = 300;

if (!process.env.DATABASE_URL) {
  test.skip('multi-instance: needs a Postgres server (DATABASE_URL); the embedded database has no LISTEN/NOTIFY', () => {});
} else if (missing.length > 0 && !inCi) {
  test.skip(`multi-instance: ${missing.join(' and ')} not installed (apt-get install haproxy redis-server): skipped`, () => {});
} else {
  beforeAll(async () => {
    if (missing.length > 0) throw new Error(`CI=true but ${missing.join(', ')} not found: .ci/run must install them`);
    await redis.start();
    db = await freshDatabase();
    await seed(db.knex);
    const shared = { db, key: await createKey(db.knex, 'two instances') };
    const env = {
      SVAPI_REDIS_URL: redis.url,
      // As in redis-limits.test.ts: room for a loaded test machine, so the exact count holds.
      SVAPI_REDIS_TIMEOUT_MS: '250',
      SVAPI_RATE_LIMIT: '100',
      SVAPI_TRUST_PROXY: 'on',
      SVAPI_DB_POOL_MAX: '2',
      SVAPI_DRAIN_MS: String(DRAIN_MS),
      SVAPI_INSTANCES: '2',
      SVAPI_CACHE_CHECK_MS: String(CACHE_CHECK_MS),
    };
    [a, b] = await Promise.all([spawnServe(['--workers', '2'], env, { over: shared }), spawnServe(['--workers', '2'], env, { over: shared })]);
    keys = await Promise.all(Array.from({ length: STREAM_KEYS + 3 }, (_, i) => createKey(db.knex, `stream ${i}`)));
    lb = new Haproxy({ a: portOf(a), b: portOf(b) });
    await lb.start();
    // Both servers in rotation and counting the limits in Redis.
    const seen = new Set<string>();
    expect(await eventually(async () => {
      const res = await get(lb.url, keys[STREAM_KEYS], 1);
      seen.add(res.servedBy);
      return seen.size === 2;
    })).toBe(true);
    expect(await eventually(async () => (await sharedUp(a)) === 1 && (await sharedUp(b)) === 1)).toBe(true);
  }, 120_000);
  afterAll(async () => {
    await lb?.stop();
    await b?.stop();
    await a?.stop();
    await db?.destroy();
    await redis.stop();
  });
  defineTests();
}

const portOf = (svc: SpawnedServe) => Number(new URL(svc.url).port);
const sharedUp = async (svc: SpawnedServe) => metricSum(await (await fetch(`${svc.url}/metrics`, { headers: { Connection: 'close' } })).text(), 'svapi_shared_limits_up');

/** GetMonster at `base` on a connection of its own: status, body and the server HAProxy chose. */
async function get(base: string, key: Credential, monsterId: number) {
  const url = `${base}/API/hunting.asmx/GetMonster?DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}&MonsterID=${monsterId}`;
  const res = await fetch(url, { headers: { Connection: 'close' }, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.text(), servedBy: res.headers.get(SERVED_BY) ?? '' };
}

interface Stream {
  /** Answers so far, by status (`error` when the request itself failed), and by server. */
  statuses: Record<string, number>;
  servedBy: Record<string, number>;
  total: () => number;
  /** Resolves once `n` more requests have been answered. */
  more(n: number): Promise<void>;
  stop(): Promise<void>;
}

/** `concurrency` loops sending GetMonster through the balancer, one after another, until stopped. */
function stream(concurrency = 6): Stream {
  const statuses: Record<string, number> = {};
  const servedBy: Record<string, number> = {};
  let answered = 0;
  let stopped = false;
  const waiters: { at: number; resolve: () => void }[] = [];
  const loop = async () => {
    while (!stopped) {
      const i = streamed++;
      if (i >= STREAM_KEYS * 90) {
        // Out of keys: recorded (the statuses assertion names it) and every loop ends. Going on
        // would spin without ever awaiting, and the test could never time out.
        statuses['error: the test ran out of keys'] = (statuses['error: the test ran out of keys'] ?? 0) + 1;
        stopped = true;
        for (const w of waiters.splice(0)) w.resolve();
        break;
      }
      let outcome: string;
      try {
        const res = await get(lb.url, keys[Math.floor(i / 90)], (i % 30) + 1);
        outcome = String(res.status);
        servedBy[res.servedBy] = (servedBy[res.servedBy] ?? 0) + 1;
      } catch (e) {
        outcome = `error: ${(e as Error).message}`;
      }
      statuses[outcome] = (statuses[outcome] ?? 0) + 1;
      answered++;
      for (const w of waiters.filter((w) => answered >= w.at)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    statuses,
    servedBy,
    total: () => answered,
    // Once stopped (out of keys) nothing more comes: the statuses say why.
    more: (n) => (stopped ? Promise.resolve() : new Promise((resolve) => waiters.push({ at: answered + n, resolve }))),
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

function defineTests() {
  test('150 requests of one DevID through the balancer: exactly 100 answered and 50 RateLimited', async () => {
    const key = await createKey(db.knex, 'through the balancer');
    expect(await tally([lb.url], 150, key)).toEqual({ OK: 100, RateLimited: 50 });
  });

  test('a load committed while both serve is seen by every worker of both instances as it commits (the notification, not the version check)', async () => {
    const name = `Argonaut ${Date.now()}`;
    const key = keys[STREAM_KEYS + 1];
    // Each worker has the old answer cached (connections alternate between an instance's workers).
    for (const svc of [a, b]) {
      for (let i = 0; i < 4; i++) expect((await get(svc.url, key, 1)).body).toContain('<MonsterName>Argonaut</MonsterName>');
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-change-'));
    try {
      fs.writeFileSync(path.join(dir, 'monsters.csv'), `MonsterID,MonsterName,Description,ItemPictureURL\n1,${name},,\n`);
      await loadDataset(db.knex, dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const committed = Date.now();
    const seenAt = await Promise.all([a, b].map(async (svc) => {
      // Four new answers in a row on fresh connections: both workers of the instance have it.
      let inARow = 0;
      while (inARow < 4 && Date.now() - committed < LOAD_SEEN_MS) {
        inARow = (await get(svc.url, key, 1)).body.includes(`<MonsterName>${name}</MonsterName>`) ? inARow + 1 : 0;
      }
      return inARow === 4 ? Date.now() - committed : Infinity;
    }));
    expect(seenAt.every((ms) => ms < LOAD_SEEN_MS)).toBe(true);
  });

  test('Redis stopped mid-run: every request through the balancer is still answered', async () => {
    const load = stream();
    try {
      await load.more(30);
      await redis.stop();
      // Both instances notice (they then count on their hosts), and requests go on meanwhile.
      expect(await eventually(async () => (await sharedUp(a)) === 0 && (await sharedUp(b)) === 0)).toBe(true);
      await load.more(60);
    } finally {
      await load.stop();
    }
    expect(load.statuses).toEqual({ 200: load.total() });
    expect(Object.keys(load.servedBy).sort()).toEqual(['a', 'b']);
  });

  test('one instance sent SIGTERM under load: it drains, stops with 0, and no request is lost at the balancer', async () => {
    const load = stream();
    try {
      await load.more(30);
      b.child.kill('SIGTERM');
      // Draining: out of the balancer's rotation (/readyz 503) while it still answers requests.
      expect(await eventually(async () => {
        const res = await fetch(`${b.url}/readyz`, { headers: { Connection: 'close' } });
        return res.status === 503 && (await res.text()) === 'shutting down';
      }, DRAIN_MS)).toBe(true);
      expect((await get(b.url, keys[STREAM_KEYS + 2], 1)).status).toBe(200);
      expect(await b.exited).toEqual({ code: 0, signal: null });
      const beforeExit = load.servedBy.b;
      await load.more(60);
      expect(load.servedBy.b).toBe(beforeExit);
    } finally {
      await load.stop();
    }
    expect(load.statuses).toEqual({ 200: load.total() });
    expect(load.servedBy.b).toBeGreaterThan(0);
  });
}
