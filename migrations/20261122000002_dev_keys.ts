import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dev_keys', (t) => {
    t.increments('dev_id');
    t.text('name').notNullable();
    // SHA-256 of the key: the key itself is shown once and never stored.
    t.binary('key_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('dev_keys');
}
