import os from 'node:os';
import { DEFAULT_POOL_MAX } from '../src/config';
import { databaseOnThisHost, defaultPoolMax } from '../src/db/pool-size';
import { spawnServe, type SpawnedServe } from './support/spawn-serve';
import { eventually } from './support/wait';

test('a database on this host: a Unix socket, loopback, localhost, this machine\'s name or one of its addresses', () => {
  const own = () => ['10.1.2.3', 'fe80::1'];
  for (const url of [
    'postgres://u@127.0.0.1:5432/db',
    'postgres://u@127.0.0.2/db',
    'postgres://u@localhost/db',
    'postgres://u@[::1]:5432/db',
    'postgres:///db',
    'postgres:///db?host=/var/run/postgresql',
    'postgres://u@10.1.2.3/db',
    'postgres://u@[fe80::1]/db',
    `postgres://u@${os.hostname()}/db`,
  ]) expect([url, databaseOnThisHost(url, own)]).toEqual([url, true]);
  for (const url of [
    'postgres://u@10.1.2.4/db',
    'postgres://u@db.example.com/db',
    'postgres://u@[2001:db8::1]/db',
    'postgres://u@127.0.0.1/db?host=db.example.com',
  ]) expect([url, databaseOnThisHost(url, own)]).toEqual([url, false]);
});

test('the default pool: cores x 2 + 1 shared among the processes, 2 to 10 each, on this host; 10 elsewhere', () => {
  expect(defaultPoolMax(true, 2, 2)).toBe(3);
  expect(defaultPoolMax(true, 2, 1)).toBe(5);
  expect(defaultPoolMax(true, 1, 1)).toBe(3);
  expect(defaultPoolMax(true, 8, 8)).toBe(3);
  expect(defaultPoolMax(true, 64, 64)).toBe(3);
  expect(defaultPoolMax(true, 16, 1)).toBe(DEFAULT_POOL_MAX);
  expect(defaultPoolMax(true, 2, 8)).toBe(2);
  expect(defaultPoolMax(false, 2, 2)).toBe(DEFAULT_POOL_MAX);
});

describe('svapi serve --workers 2 over a database on this host', () => {
  let svc: SpawnedServe | undefined;
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
  });

  test('SVAPI_DB_POOL_MAX unset: says the pool it chose, and each worker opens no more connections than that under load', async () => {
    // On one core (taskset, as a container's cpuset), whatever the machine: 2 connections a worker.
    svc = await spawnServe(['--workers', '2'], { SVAPI_DB_POOL_MAX: '', SVAPI_CACHE_MB: '0' }, { prefix: ['taskset', '-c', '0'] });
    const expected = defaultPoolMax(true, 1, 2);
    expect(expected).toBe(2);
    const said = svc.log.find((l) => l.msg === 'database connections per process (SVAPI_DB_POOL_MAX unset)');
    expect(said).toMatchObject({ poolMax: expected, databaseOnThisHost: true, cores: 1, workers: 2 });

    const { db, key } = svc;
    const database = (await db.knex.raw('SELECT current_database() AS name')).rows[0].name as string;
    // A Postgres server counts the service's connections; the embedded database (tests without
    // DATABASE_URL) is one session behind a multiplexer and has no pg_stat_activity to count them in.
    const connections = db.embedded ? undefined : async () => Number((await db.knex.raw(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = ? AND application_name = 'svapi-service'", [database])).rows[0].n);
    // Many calls at once, more than both workers' pools together would take at the old default.
    let most = 0;
    const url = svc.url;
    const call = async (i: number) => {
      const res = await fetch(`${url}/API/hunting.asmx/GetMonsterGlobals?DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}&MonsterID=${1 + (i % 5)}&NumberOfGlobals=100`);
      await res.arrayBuffer();
      return res.status;
    };
    const burst = async () => {
      const statuses = await Promise.all(Array.from({ length: 60 }, (_, i) => call(i)));
      if (connections) most = Math.max(most, await connections());
      return statuses;
    };
    // Until the pools have grown to what the load asks of them (each opens connections as needed).
    expect(await eventually(async () => (await burst()).every((s) => s === 200) && (!connections || most >= expected), 20_000)).toBe(true);
    for (let i = 0; i < 3; i++) await burst();
    if (connections) expect(most).toBeLessThanOrEqual(2 * expected);
  }, 60_000);
});
