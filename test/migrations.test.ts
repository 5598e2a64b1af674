import { freshDatabase, type TestDatabase } from './support/db';
import { migrateLatest, migrateRollbackAll, schemaIsCurrent } from '../src/db/migrate';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase({ migrate: false });
});
afterAll(() => db.destroy());

const tables = async () =>
  (await db.knex.raw(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'knex_%' ORDER BY 1`))
    .rows.map((r: { tablename: string }) => r.tablename);

test('migrations run up, down and up again', async () => {
  expect(await schemaIsCurrent(db.knex)).toBe(false);
  await migrateLatest(db.knex);
  expect(await schemaIsCurrent(db.knex)).toBe(true);
  const up = await tables();
  expect(up).toEqual([
    'auction_categories', 'data_version', 'dev_keys', 'global_types', 'hunting_globals', 'item_categories', 'items',
    'landareas', 'monsters', 'planets', 'players', 'professions', 'weapon_damage', 'weapons',
  ]);

  await migrateRollbackAll(db.knex);
  expect(await tables()).toEqual([]);
  const ext = await db.knex.raw(`SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'`);
  expect(ext.rows[0].n).toBe(0);

  await migrateLatest(db.knex);
  expect(await tables()).toEqual(up);
});

test('decimals are unconstrained numeric and timestamps are timestamptz', async () => {
  const cols = await db.knex.raw(`SELECT table_name || '.' || column_name AS c, data_type, numeric_scale
    FROM information_schema.columns WHERE table_schema = 'public' AND column_name IN ('tt_value', 'damage', 'time_stamp')`);
  for (const row of cols.rows) {
    if (row.c.endsWith('time_stamp')) expect(row.data_type).toBe('timestamp with time zone');
    else expect([row.c, row.data_type, row.numeric_scale]).toEqual([row.c, 'numeric', null]);
  }
});
