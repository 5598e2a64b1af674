// On a Postgres server the fixed-text reads run as named prepared statements (db/queries/
// statements.ts); on the embedded database, one session shared by every connection, they must not.

import { freshDatabase, type TestDatabase } from './support/db';
import { loadConfig } from '../src/config';
import { createKnex } from '../src/db/connect';
import { endReadPool, readPool } from '../src/db/read-pool';
import { findOperation } from '../src/operations/catalog';
import { decodeParams } from '../src/pipeline/decode';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase({ seed: true });
});
afterAll(() => db?.destroy());

test('every operation answers the same on the first call and after the plan has settled, and names its fixed reads only on a server', async () => {
  const config = loadConfig({ DATABASE_URL: db.url, SVAPI_DB_POOL_MAX: '1' });
  // One connection for the reads (db/read-pool.ts): the statements it prepared are visible to the query that lists them there.
  const knex = createKnex(db.url, 'service', config, db.embedded);
  try {
    const calls: [string, 'hunting' | 'item' | 'weapons' | 'auction', Record<string, string>][] = [
      ['GetMonster', 'hunting', { MonsterID: '5' }],
      ['GetMonsterGlobals', 'hunting', { MonsterID: '5', NumberOfGlobals: '20' }],
      ['GetPlayerGlobals', 'hunting', { playerID: '777001', NumberOfGlobals: '20' }],
      ['GetLandareaGlobals', 'hunting', { LandareaID: '107' }],
      ['GetMonsters', 'hunting', { SearchWord: '' }],
      ['FindItems', 'item', { SearchWord: '' }],
      ['GetWeapons', 'weapons', { SearchWord: '' }],
      ['GetWeapons', 'weapons', { SearchWord: 'a' }],
      ['GetAuctionCategories', 'auction', {}],
    ];
    for (const [name, endpoint, raw] of calls) {
      const op = findOperation(endpoint, name)!;
      const run = () => op.run({ knex, config }, decodeParams(op, raw));
      const first = await run();
      // Postgres plans a prepared statement for its parameters five times, then may keep a generic plan.
      for (let i = 0; i < 7; i++) expect(await run()).toEqual(first);
      expect(JSON.stringify(first).length).toBeGreaterThan(20);
    }
    const prepared = (await readPool(knex).query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((r) => r.name);
    expect(prepared).toEqual(db.embedded ? [] : [
      'svapi_auction_categories', 'svapi_globals_by_landarea_id', 'svapi_globals_by_monster_id', 'svapi_globals_by_player_id',
      'svapi_items_by_name', 'svapi_monster_by_id', 'svapi_monsters_by_name', 'svapi_weapon_damage', 'svapi_weapons_by_name',
    ]);
  } finally {
    await endReadPool(knex);
    await knex.destroy();
  }
});

test('SVAPI_DB_NAMED_STATEMENTS=false leaves every statement unnamed (for poolers that cannot keep them)', async () => {
  const config = loadConfig({ DATABASE_URL: db.url, SVAPI_DB_POOL_MAX: '1', SVAPI_DB_NAMED_STATEMENTS: 'false' });
  const knex = createKnex(db.url, 'service', config, db.embedded);
  try {
    const op = findOperation('hunting', 'GetMonster')!;
    await op.run({ knex, config }, decodeParams(op, { MonsterID: '5' }));
    expect((await readPool(knex).query('SELECT name FROM pg_prepared_statements')).rows).toEqual([]);
  } finally {
    await endReadPool(knex);
    await knex.destroy();
  }
});
