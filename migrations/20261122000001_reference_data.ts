import type { Knex } from 'knex';

// Decimals are unconstrained `numeric` so a value reads back exactly as loaded (0.1 stays 0.1).
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');

  await knex.schema.createTable('professions', (t) => {
    t.integer('profession_id').primary();
    t.text('profession_name').notNullable();
  });

  await knex.schema.createTable('weapons', (t) => {
    t.integer('weapon_id').primary();
    t.text('weapon_name').notNullable();
    t.text('description');
    t.text('item_picture_url');
    for (const c of [
      'min_hit_level', 'max_hit_level', 'min_dmg_level', 'max_dmg_level', 'weight', 'range',
      'impact_radius', 'attacks_min', 'decay',
    ]) {
      t.specificType(c, 'numeric').notNullable();
    }
    t.integer('ammo_burn').notNullable();
    t.specificType('tt_value', 'numeric').notNullable();
    t.specificType('min_tt_value', 'numeric').notNullable();
    t.integer('total_uses').notNullable();
    t.boolean('sib_weapon').notNullable();
    t.integer('hit_profession_id').notNullable().references('professions.profession_id');
    t.integer('dmg_profession_id').notNullable().references('professions.profession_id');
    t.integer('item_id').notNullable();
  });

  await knex.schema.createTable('weapon_damage', (t) => {
    t.integer('weapon_id').notNullable().references('weapons.weapon_id').onDelete('CASCADE');
    t.text('damage_type_name').notNullable();
    t.specificType('damage', 'numeric').notNullable();
    t.primary(['weapon_id', 'damage_type_name']);
  });

  await knex.schema.createTable('item_categories', (t) => {
    t.integer('category_id').primary();
    t.text('category_name').notNullable();
  });

  await knex.schema.createTable('items', (t) => {
    t.integer('item_id').primary();
    t.text('item_name').notNullable();
    t.text('description');
    t.text('item_picture_url');
    t.specificType('tt_value', 'numeric').notNullable();
    t.integer('category_id').notNullable().references('item_categories.category_id');
  });

  await knex.schema.createTable('auction_categories', (t) => {
    t.integer('category_id').primary();
    t.text('category_name').notNullable();
  });

  await knex.schema.createTable('monsters', (t) => {
    t.integer('monster_id').primary();
    t.text('monster_name').notNullable();
    t.text('description');
    t.text('item_picture_url');
  });

  await knex.schema.createTable('planets', (t) => {
    t.integer('planet_id').primary();
    t.text('planet_name').notNullable();
    t.text('description');
  });

  await knex.schema.createTable('landareas', (t) => {
    t.integer('area_id').primary();
    t.text('area_name').notNullable();
    t.integer('planet_id').references('planets.planet_id');
  });

  await knex.schema.createTable('players', (t) => {
    t.integer('player_id').primary();
    t.text('player_name').notNullable();
    t.boolean('is_team').notNullable();
  });

  await knex.schema.createTable('global_types', (t) => {
    t.integer('global_type_id').primary();
    t.text('global_type_name').notNullable();
  });

  await knex.schema.createTable('hunting_globals', (t) => {
    t.bigIncrements('global_id');
    t.integer('monster_id').notNullable().references('monsters.monster_id');
    t.timestamp('time_stamp', { useTz: true }).notNullable();
    t.integer('global_type_id').notNullable().references('global_types.global_type_id');
    t.integer('global_value').notNullable();
    t.integer('player_id').notNullable().references('players.player_id');
    t.integer('landarea_id').notNullable().references('landareas.area_id');
    // A global is its whole content: loading the same row twice must add nothing.
    t.unique(['monster_id', 'time_stamp', 'global_type_id', 'global_value', 'player_id', 'landarea_id'], {
      indexName: 'hunting_globals_content_key',
    });
  });

  // Case-insensitive substring search (ILIKE '%word%') is served by trigram GIN indexes. No pending
  // list (fastupdate off): rows arrive in batch loads, and a pending list makes the planner
  // cost the index above a sequential scan until the next vacuum.
  for (const [table, column] of [
    ['weapons', 'weapon_name'],
    ['items', 'item_name'],
    ['monsters', 'monster_name'],
  ]) {
    await knex.raw(`CREATE INDEX ${table}_${column}_trgm ON ${table} USING gin (${column} gin_trgm_ops) WITH (fastupdate = off)`);
  }

  // Newest-first per monster / player / land area (CONTRACT §5 order), so LIMIT n reads n index entries.
  await knex.raw(`CREATE INDEX hunting_globals_by_monster ON hunting_globals
    (monster_id, time_stamp DESC, global_value DESC, player_id, global_type_id)`);
  await knex.raw(`CREATE INDEX hunting_globals_by_player ON hunting_globals
    (player_id, time_stamp DESC, global_value DESC, monster_id, global_type_id)`);
  await knex.raw(`CREATE INDEX hunting_globals_by_landarea ON hunting_globals
    (landarea_id, time_stamp DESC, global_value DESC, player_id, monster_id, global_type_id)`);
  await knex.raw('CREATE INDEX items_category_id ON items (category_id)');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'hunting_globals', 'global_types', 'players', 'landareas', 'planets', 'monsters',
    'auction_categories', 'items', 'item_categories', 'weapon_damage', 'weapons', 'professions',
  ]) {
    await knex.schema.dropTable(table);
  }
  await knex.raw('DROP EXTENSION IF EXISTS pg_trgm');
}
