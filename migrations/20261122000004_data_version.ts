import type { Knex } from 'knex';

// One row counting committed loads. The loader bumps it (and notifies `svapi_data_changed`) in
// its transaction, so a service process knows when the data its cached answers came from changed.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE data_version (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    version bigint NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now())`);
  await knex.raw('INSERT INTO data_version (version) VALUES (1)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE data_version');
}
