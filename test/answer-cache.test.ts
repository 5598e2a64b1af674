// The answer cache (src/cache): repeated requests are answered from memory, and never with data
// older than the last committed load. On a real server the load's NOTIFY drops the cache as it
// commits; on the embedded database (no notifications) the version check does, within
// SVAPI_CACHE_CHECK_MS; while the LISTEN connection is lost the cache is not used. Credentials
// and limits are checked on every request all the same. Each test has a database of its own.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from './support/db';
import { serveOver, type ServedApp } from './support/serve';
import { BINDINGS, call, readError, readResult, HUNTING, type BindingName } from './support/bindings';
import { createKey, revokeKey } from '../src/auth/keys';
import { loadDataset } from '../src/load';
import { onRead } from '../src/db/queries/statements';
import { onServer } from './support/server-only';
import { until } from './support/wait';

/**
 * What "at once" and "never" become on two shared cores: a bound on waiting for what must happen,
 * far longer than it takes, and still far shorter than SVAPI_CACHE_CHECK_MS where a test makes
 * that interval long so that only the behaviour under test can explain a fresh answer.
 */
const WAIT_MS = 15_000;
const LONG_CHECK_MS = '60000'; // the most SVAPI_CACHE_CHECK_MS may be

let db: TestDatabase;
let key: { devId: number; devKey: string };
let apps: ServedApp[] = [];

beforeEach(async () => {
  db = await freshDatabase({ seed: true });
  key = await createKey(db.knex, 'cache');
});
afterEach(async () => {
  for (const app of apps) await app.close();
  apps = [];
  await db?.destroy();
});

async function serve(env: NodeJS.ProcessEnv = {}): Promise<ServedApp> {
  const app = await serveOver(db, env);
  apps.push(app);
  return app;
}

const monster = (app: ServedApp, binding: BindingName = 'get', k = key) =>
  call(app.url, binding, HUNTING, 'GetMonster', { DevID: String(k.devId), DevKey: k.devKey, MonsterID: '1' });

async function monsterName(app: ServedApp, binding: BindingName = 'get'): Promise<string> {
  const answer = await monster(app, binding);
  expect(answer.status).toBe(200);
  const name = readResult(answer.body).children.find((c) => c.local === 'MonsterName');
  return name!.text;
}

function datasetRenaming(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-cache-'));
  fs.writeFileSync(path.join(dir, 'monsters.csv'), `MonsterID,MonsterName,Description,ItemPictureURL\n1,${name},,\n`);
  return dir;
}

/**
 * Counts the service's reads of the data version (the answer cache's check), as they are sent: one
 * is sent only once the one before has completed, so all but the last counted have completed.
 */
function versionChecks(app: ServedApp): () => number {
  let checks = 0;
  onRead(app.knex, (statement) => {
    if (/FROM data_version/.test(statement.text)) checks++;
  });
  return () => checks;
}

const rename = (name: string) => db.knex('monsters').where({ monster_id: 1 }).update({ monster_name: name });

test('a repeated request is answered from the cache: a change made behind the loader is not seen until the data version moves', async () => {
  // A check a second (the default): a check late by more than 1.5 s on a busy machine would stop
  // the cache's use and show the change, as it should then.
  const app = await serve({ SVAPI_CACHE_CHECK_MS: '1000' });
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Argonaut');

  await rename('Changed Behind');
  const checks = versionChecks(app);
  // Three sent after the rename: two of them have completed.
  await until('two version checks after the rename', () => checks() >= 3, WAIT_MS);
  // Two version checks later every binding still has its cached answer.
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Argonaut');

  // What a DBA does after changing tables by hand (README): move the version.
  await db.knex('data_version').increment('version', 1);
  await until('the answer names Changed Behind', async () => (await monsterName(app)) === 'Changed Behind', WAIT_MS);
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Changed Behind');
});

test('a load that commits is seen at once on a real server (LISTEN), within the check interval on the embedded one', async () => {
  // On a real server the interval is made long, so only the notification can explain a fresh answer.
  const app = await serve({ SVAPI_CACHE_CHECK_MS: db.embedded ? '200' : LONG_CHECK_MS });
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Argonaut');

  await loadDataset(db.knex, datasetRenaming('Argonaut Reloaded'));
  await until('the answer names Argonaut Reloaded', async () => (await monsterName(app)) === 'Argonaut Reloaded', WAIT_MS);
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Argonaut Reloaded');

  // A load that changes nothing keeps the version (and so the cache).
  const before = (await db.knex('data_version').first()).version;
  await loadDataset(db.knex, datasetRenaming('Argonaut Reloaded'));
  expect((await db.knex('data_version').first()).version).toBe(before);

  await loadDataset(db.knex, datasetRenaming('Argonaut'));
  await until('the answer names Argonaut', async () => (await monsterName(app)) === 'Argonaut', WAIT_MS);
});

onServer('while the LISTEN connection is lost no cached answer is served: a load it could not hear is seen', async () => {
  // The version check is made too rare to explain a fresh answer: only the LISTEN connection keeps the cache right.
  const app = await serve({ SVAPI_CACHE_CHECK_MS: LONG_CHECK_MS });
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Argonaut');

  // A change without a notification is not seen while the listener is up: the answers are cached.
  await rename('Unheard');
  await db.knex('data_version').increment('version', 1);
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Argonaut');

  const listener = await db.knex.raw(`SELECT pid FROM pg_stat_activity WHERE application_name = 'svapi-listen' AND datname = current_database()`);
  expect(listener.rows).toHaveLength(1);
  await db.knex.raw('SELECT pg_terminate_backend(?)', [listener.rows[0].pid]);
  // The service reconnects only after SVAPI_CACHE_CHECK_MS: until then it cannot know, so it reads the database.
  await until('the answer names Unheard', async () => (await monsterName(app)) === 'Unheard', WAIT_MS);
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Unheard');
});

onServer('a lost LISTEN connection is opened again, and cached answers are served again after it', async () => {
  const app = await serve({ SVAPI_CACHE_CHECK_MS: '500' });
  const listeners = async () => (await db.knex.raw(`SELECT pid FROM pg_stat_activity WHERE application_name = 'svapi-listen' AND datname = current_database()`)).rows.map((r: { pid: number }) => r.pid);
  const [first] = await listeners();
  expect(first).toBeDefined();
  await db.knex.raw('SELECT pg_terminate_backend(?)', [first]);
  await until('a new LISTEN connection', async () => (await listeners()).some((pid: number) => pid !== first), WAIT_MS);
  // Listening again, the cache is used again: a change behind the loader is not seen. (The name
  // before is whatever the tests before left, so the answer is compared with it, not with a constant.)
  await until('a cached answer', async () => {
    const before = await monsterName(app);
    await rename('Behind Again');
    const served = await monsterName(app);
    await rename(before);
    return served === before;
  }, WAIT_MS);
});

test('SVAPI_CACHE_MB=0 turns the cache off: every request reads the database', async () => {
  const app = await serve({ SVAPI_CACHE_MB: '0' });
  expect(await monsterName(app)).toBe('Argonaut');
  await rename('Uncached');
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Uncached');
});

test('credentials are checked on every request, cached answer or not', async () => {
  const app = await serve({ SVAPI_KEY_CACHE_MS: '0' });
  const other = await createKey(db.knex, 'cache, revoked later');
  expect((await monster(app, 'get', other)).status).toBe(200);
  expect((await monster(app, 'get', other)).status).toBe(200);
  for (const binding of BINDINGS) {
    const wrong = await monster(app, binding, { devId: other.devId, devKey: `${other.devKey.slice(0, -1)}x` });
    expect(readError(wrong.body).code).toBe('AuthenticationFailed');
  }
  await revokeKey(db.knex, other.devId);
  for (const binding of BINDINGS) expect(readError((await monster(app, binding, other)).body).code).toBe('AuthenticationFailed');
});

test('/metrics counts cache hits and misses', async () => {
  const app = await serve();
  await until('a first answer', async () => (await monster(app)).status === 200, WAIT_MS);
  for (let i = 0; i < 5; i++) await monster(app);
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1]);
  expect(value('svapi_cache_hits_total')).toBeGreaterThanOrEqual(5);
  expect(value('svapi_cache_misses_total')).toBeGreaterThanOrEqual(1);
  expect(value('svapi_cache_bytes')).toBeGreaterThan(0);
});
