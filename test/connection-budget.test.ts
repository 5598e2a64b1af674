// `serve` checks at start-up that instances x workers x (SVAPI_DB_POOL_MAX + 1) fits the server's
// max_connections (less the superuser's reserve), and warns when it does not.

import { connectionBudget } from '../src/db/connection-budget';
import { freshDatabase, type TestDatabase } from './support/db';
import { spawnServe } from './support/spawn-serve';

const WARNING = /^more database connections planned than the server allows/;

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.destroy());

test('the budget: every process its pool and a LISTEN connection, against max_connections less the reserve', async () => {
  const setting = async (name: string) => Number((await db.knex.raw(`SHOW ${name}`)).rows[0][name]);
  const available = (await setting('max_connections')) - (await setting('superuser_reserved_connections'));
  expect(await connectionBudget(db.knex, { instances: 3, workers: 4, poolMax: 10 })).toEqual({ needed: 3 * 4 * 11, available });
});

test('serve warns, naming the numbers, when the plan exceeds the server; not when it fits', async () => {
  const over = await spawnServe(['--workers', '1'], { SVAPI_INSTANCES: '2', SVAPI_DB_POOL_MAX: '1000' });
  try {
    const warned = over.log.filter((l) => WARNING.test(String(l.msg)));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 40, instances: 2, workers: 1, poolMax: 1000, needed: 2002 });
  } finally {
    await over.stop();
  }
  const fits = await spawnServe(['--workers', '1'], { SVAPI_INSTANCES: '2', SVAPI_DB_POOL_MAX: '4' });
  try {
    expect(fits.log.filter((l) => WARNING.test(String(l.msg)))).toEqual([]);
  } finally {
    await fits.stop();
  }
}, 120_000);
