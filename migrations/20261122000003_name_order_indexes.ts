import type { Knex } from 'knex';

// An empty SearchWord lists everything by name: these indexes give that order, so the first
// SVAPI_MAX_RESULTS rows are read from the index instead of sorting the whole table.
const INDEXES = [
  ['weapons', 'weapon_name', 'weapon_id'],
  ['items', 'item_name', 'item_id'],
  ['monsters', 'monster_name', 'monster_id'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [table, name, id] of INDEXES) {
    await knex.raw(`CREATE INDEX ${table}_name_order ON ${table} ((lower(${name}) COLLATE "C"), ${id})`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table] of INDEXES) await knex.raw(`DROP INDEX ${table}_name_order`);
}
