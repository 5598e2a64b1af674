import type { Knex } from 'knex';
import { migrationSource } from '../../migrations';

export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = await knex.migrate.latest({ migrationSource });
  return applied as string[];
}

export async function migrateRollbackAll(knex: Knex): Promise<string[]> {
  const [, undone] = await knex.migrate.rollback({ migrationSource }, true);
  return undone as string[];
}

/** True when every migration has run (readiness). */
export async function schemaIsCurrent(knex: Knex): Promise<boolean> {
  const [, pending] = await knex.migrate.list({ migrationSource });
  return pending.length === 0;
}
