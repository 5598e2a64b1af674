import { freshDatabase, type TestDatabase } from './support/db';
import { newestGlobals } from '../src/db/queries/globals';
import { ITEM_SEARCH } from '../src/db/queries/items';
import { MONSTER_SEARCH } from '../src/db/queries/monsters';
import { searchStatement, type NameSearch } from '../src/db/queries/search';
import { genericPlan } from '../bench/lib/plans';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
  await db.knex('professions').insert({ profession_id: 1, profession_name: 'P' });
  await db.knex('item_categories').insert({ category_id: 1, category_name: 'C' });
  await db.knex.raw(`INSERT INTO items (item_id, item_name, tt_value, category_id)
    SELECT g, 'Item ' || md5(g::text), 1.5, 1 FROM generate_series(1, 100000) g`);
  await db.knex.raw(`INSERT INTO monsters (monster_id, monster_name)
    SELECT g, 'Monster ' || md5(g::text) FROM generate_series(1, 100000) g`);
  await db.knex('global_types').insert({ global_type_id: 1, global_type_name: 'Hunting' });
  await db.knex('players').insert({ player_id: 1, player_name: 'P', is_team: false });
  await db.knex('landareas').insert({ area_id: 1, area_name: 'A' });
  await db.knex.raw(`INSERT INTO hunting_globals (monster_id, time_stamp, global_type_id, global_value, player_id, landarea_id)
    SELECT 1 + g % 1000, timestamptz '2026-01-01' + g * interval '1 minute', 1, g, 1, 1 FROM generate_series(1, 100000) g`);
  await db.knex.raw('ANALYZE');
}, 600_000);
afterAll(() => db.destroy());

/** The plan of the service's search statement for `word`, planned for its values. */
async function plan(search: NameSearch, word: string): Promise<string> {
  const { statement: { text: sql }, values: bindings } = searchStatement(search, word, 1000);
  const rows = (await db.knex.raw(`EXPLAIN ${sql}`.replace(/\$(\d+)/g, (_m, i) => db.knex.raw('?', [bindings[Number(i) - 1]]).toQuery()))).rows;
  return rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
}

test.each([
  ['items', 'item_name', ITEM_SEARCH],
  ['monsters', 'monster_name', MONSTER_SEARCH],
])('a name search on %s at 100,000 rows uses the trigram index, not a sequential scan', async (table, column, search) => {
  const text = await plan(search, 'a1b2c');
  expect(text).toContain(`${table}_${column}_folded_trgm`);
  // (item_categories holds one row here: a scan of it is the right plan)
  expect(text).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
});

test('globals by monster come from the newest-first index', async () => {
  const text = (await db.knex.raw(`EXPLAIN SELECT * FROM hunting_globals WHERE monster_id = 5
    ORDER BY time_stamp DESC, global_value DESC, player_id, monster_id, global_type_id LIMIT 10`)).rows
    .map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
  expect(text).toContain('hunting_globals_by_monster');
  expect(text).not.toMatch(/Sort/);
});

test('an empty search word reads the first rows in name order from an index, without sorting the table', async () => {
  const text = await plan(ITEM_SEARCH, '');
  expect(text).toContain('items_name_order');
  expect(text).not.toMatch(/Sort|Seq Scan on items\b/);
});

/** The generic plan of a named statement, on one session (bench/lib/plans.ts). */
const genericPlanText = (sql: string, bindings: readonly unknown[]) =>
  db.knex.transaction(async (trx) => (await genericPlan((q) => trx.raw(q), db.knex, sql, bindings)).join('\n'));

test('named statements keep to the indexes in their generic plans: the empty-word listing and the globals', async () => {
  const listing = searchStatement(ITEM_SEARCH, '', 1000);
  const listingPlan = await genericPlanText(listing.statement.text, listing.values);
  expect(listingPlan).toContain('items_name_order');
  expect(listingPlan).not.toMatch(/Sort|Seq Scan on items\b/);

  const sent: { sql: string; bindings: readonly unknown[] }[] = [];
  const capture = (q: { sql: string; bindings: readonly unknown[] }) => sent.push(q);
  db.knex.on('query', capture);
  try {
    await newestGlobals(db.knex, { monster_id: 5 }, 100);
  } finally {
    db.knex.off('query', capture);
  }
  const globalsPlan = await genericPlanText(sent[0].sql, sent[0].bindings);
  expect(globalsPlan).toContain('hunting_globals_by_monster');
  // (players holds one row here: a scan of it is the right plan)
  expect(globalsPlan).not.toMatch(/Seq Scan on (hunting_globals|monsters)\b/);
});
