// The answer cache (src/cache): repeated requests are answered from memory, and never with data
// older than the last committed load. On a real server the load's NOTIFY drops the cache as it
// commits; on the embedded database (no notifications) the version check does, within
// SVAPI_CACHE_CHECK_MS. Credentials and limits are checked on every request all the same.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from './support/db';
import { serveOver, type ServedApp } from './support/serve';
import { BINDINGS, call, readError, readResult, HUNTING, type BindingName } from './support/bindings';
import { createKey, revokeKey } from '../src/auth/keys';
import { loadDataset } from '../src/load';
import { until } from './support/wait';

let db: TestDatabase;
let key: { devId: number; devKey: string };
const apps: ServedApp[] = [];

beforeAll(async () => {
  db = await freshDatabase({ seed: true });
  key = await createKey(db.knex, 'cache');
});
afterAll(async () => {
  for (const app of apps) await app.close();
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

/** Counts the service's reads of the data version (the answer cache's check), as they complete. */
function versionChecks(app: ServedApp): () => number {
  let checks = 0;
  app.knex.on('query-response', (_rows: unknown, query: { sql: string }) => {
    if (/FROM data_version/.test(query.sql)) checks++;
  });
  return () => checks;
}

const rename = (name: string) => db.knex('monsters').where({ monster_id: 1 }).update({ monster_name: name });

test('a repeated request is answered from the cache: a change made behind the loader is not seen until the data version moves', async () => {
  const app = await serve({ SVAPI_CACHE_CHECK_MS: '100' });
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Argonaut');

  await rename('Changed Behind');
  const checks = versionChecks(app);
  // The first to complete may have begun before the rename.
  await until('three version checks after the rename', () => checks() >= 4, 3000);
  // Three version checks later every binding still has its cached answer.
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Argonaut');

  // What a DBA does after changing tables by hand (README): move the version.
  await db.knex('data_version').increment('version', 1);
  await until('the answer names Changed Behind', async () => (await monsterName(app)) === 'Changed Behind', 1000);
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Changed Behind');
  await rename('Argonaut');
  await db.knex('data_version').increment('version', 1);
});

test('a load that commits is seen at once on a real server (LISTEN), within the check interval on the embedded one', async () => {
  // On a real server the interval is made long, so only the notification can explain a fresh answer.
  const app = await serve({ SVAPI_CACHE_CHECK_MS: db.embedded ? '200' : '60000' });
  await until('the answer names Argonaut', async () => (await monsterName(app)) === 'Argonaut', 2000);
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Argonaut');

  await loadDataset(db.knex, datasetRenaming('Argonaut Reloaded'));
  const lag = await until('the answer names Argonaut Reloaded', async () => (await monsterName(app)) === 'Argonaut Reloaded', db.embedded ? 1500 : 1000);
  if (!db.embedded) expect(lag).toBeLessThan(500);
  for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Argonaut Reloaded');

  // A load that changes nothing keeps the version (and so the cache).
  const before = (await db.knex('data_version').first()).version;
  await loadDataset(db.knex, datasetRenaming('Argonaut Reloaded'));
  expect((await db.knex('data_version').first()).version).toBe(before);

  await loadDataset(db.knex, datasetRenaming('Argonaut'));
  await until('the answer names Argonaut', async () => (await monsterName(app)) === 'Argonaut', 1500);
});

test('SVAPI_CACHE_MB=0 turns the cache off: every request reads the database', async () => {
  const app = await serve({ SVAPI_CACHE_MB: '0' });
  expect(await monsterName(app)).toBe('Argonaut');
  await rename('Uncached');
  try {
    for (const binding of BINDINGS) expect(await monsterName(app, binding)).toBe('Uncached');
  } finally {
    await rename('Argonaut');
    await db.knex('data_version').increment('version', 1);
  }
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
  await until('a first answer', async () => (await monster(app)).status === 200, 2000);
  for (let i = 0; i < 5; i++) await monster(app);
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1]);
  expect(value('svapi_cache_hits_total')).toBeGreaterThanOrEqual(5);
  expect(value('svapi_cache_misses_total')).toBeGreaterThanOrEqual(1);
  expect(value('svapi_cache_bytes')).toBeGreaterThan(0);
});
