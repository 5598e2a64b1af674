// The service reads on node-postgres's Pool (src/db/read-pool.ts), which holds all of a process's
// SVAPI_DB_POOL_MAX connections: readiness, the data version and the operations' reads go there.

import type { Knex } from 'knex';
import { freshDatabase, type TestDatabase } from './support/db';
import { loadConfig } from '../src/config';
import { createKnex } from '../src/db/connect';
import { migrateLatest } from '../src/db/migrate';
import { endReadPool, readPool, readPoolFigures, readPoolMax } from '../src/db/read-pool';
import { readRows } from '../src/db/queries/statements';
import { readSchemaIsCurrent } from '../src/db/queries/schema';
import { readDataVersion } from '../src/db/data-version';

let db: TestDatabase;
const opened: Knex[] = [];
beforeAll(async () => {
  db = await freshDatabase({ migrate: false });
});
afterAll(async () => {
  for (const k of opened) {
    await endReadPool(k);
    await k.destroy();
  }
  await db?.destroy();
});

function service(env: NodeJS.ProcessEnv = {}): Knex {
  const k = createKnex(db.url, 'service', loadConfig({ DATABASE_URL: db.url, ...env }), db.embedded);
  opened.push(k);
  return k;
}

test('readiness says whether every migration has run, from an empty database to a missing migration', async () => {
  const k = service();
  expect(await readSchemaIsCurrent(k)).toBe(false);
  await migrateLatest(db.knex);
  expect(await readSchemaIsCurrent(k)).toBe(true);
  expect(await readDataVersion(k)).toBe(Number((await db.knex('data_version').first('version')).version));
  const [last] = await db.knex('knex_migrations').orderBy('id', 'desc').limit(1).pluck('name');
  await db.knex('knex_migrations').where({ name: last }).delete();
  try {
    expect(await readSchemaIsCurrent(k)).toBe(false);
  } finally {
    await db.knex('knex_migrations').insert({ name: last, batch: 1, migration_time: new Date() });
  }
  expect(await readSchemaIsCurrent(k)).toBe(true);
});

test('reads at once beyond SVAPI_DB_POOL_MAX wait for a connection: the pool never opens more', async () => {
  const k = service({ SVAPI_DB_POOL_MAX: '3' });
  expect(readPoolMax(k)).toBe(3);
  expect(readPoolFigures(k)).toEqual({ used: 0, idle: 0, waiting: 0 });
  const slow = { text: 'SELECT pg_sleep(0.05), $1::int' };
  let most = { used: 0, waiting: 0 };
  const reads = Array.from({ length: 10 }, (_, i) => readRows(k, slow, [i]).then(() => {
    const f = readPoolFigures(k);
    most = { used: Math.max(most.used, f.used), waiting: Math.max(most.waiting, f.waiting) };
  }));
  const f = readPoolFigures(k);
  most = { used: Math.max(most.used, f.used), waiting: Math.max(most.waiting, f.waiting) };
  await Promise.all(reads);
  expect(most.used).toBeLessThanOrEqual(3);
  expect(most.waiting).toBeGreaterThan(0);
  expect(readPool(k).totalCount).toBeLessThanOrEqual(3);
  expect(readPoolFigures(k)).toEqual({ used: 0, idle: readPool(k).totalCount, waiting: 0 });
});
