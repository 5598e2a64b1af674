import { freshDatabase, type TestDatabase } from './support/db';
import { GLOBALS_STATEMENTS } from '../src/db/queries/globals';
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

/** The plan of one of the service's statements (src/db/queries), planned for `values`. */
async function explain(sql: string, values: readonly unknown[]): Promise<string> {
  const rows = (await db.knex.raw(`EXPLAIN ${sql}`.replace(/\$(\d+)/g, (_m, i) => db.knex.raw('?', [values[Number(i) - 1] as string | number]).toQuery()))).rows;
  return rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
}

/** The plan of the service's search statement for `word`, planned for its values. */
function plan(search: NameSearch, word: string): Promise<string> {
  const { statement, values } = searchStatement(search, word, 1000);
  return explain(statement.text, values);
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

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The nodes from `node` down to the first that reads `table`, or undefined. */
function pathTo(node: PlanNode, table: string): PlanNode[] | undefined {
  if (node['Relation Name'] === table) return [node];
  for (const child of node.Plans ?? []) {
    const below = pathTo(child, table);
    if (below) return [node, ...below];
  }
  return undefined;
}

test('globals by monster come from the newest-first index, already in order: no sort below the LIMIT', async () => {
  const { text: sql } = GLOBALS_STATEMENTS.monster_id;
  const values = [5, 10];
  const text = await explain(sql, values);
  // (players holds one row here: a scan of it is the right plan)
  expect(text).not.toMatch(/Seq Scan on (hunting_globals|monsters)\b/);
  const json = (await db.knex.raw(`EXPLAIN (FORMAT JSON) ${sql}`.replace(/\$(\d+)/g, (_m, i) => String(values[Number(i) - 1])))).rows[0]['QUERY PLAN'];
  const path = pathTo((typeof json === 'string' ? JSON.parse(json) : json)[0].Plan, 'hunting_globals')!;
  const read = path[path.length - 1];
  expect([read['Node Type'], read['Index Name']]).toEqual(['Index Scan', 'hunting_globals_by_monster']);
  // The newest ten are the first ten the index gives: nothing between the LIMIT and the scan sorts.
  const belowLimit = path.slice(path.map((n) => n['Node Type']).lastIndexOf('Limit') + 1);
  expect(belowLimit.length).toBeGreaterThan(0);
  expect(belowLimit.map((n) => n['Node Type'])).not.toContainEqual(expect.stringMatching(/Sort/));
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

  const globalsPlan = await genericPlanText(GLOBALS_STATEMENTS.monster_id.text, [5, 100]);
  expect(globalsPlan).toContain('hunting_globals_by_monster');
  // (players holds one row here: a scan of it is the right plan)
  expect(globalsPlan).not.toMatch(/Seq Scan on (hunting_globals|monsters)\b/);
});
