import type { Knex } from 'knex';
import { migrationNames, migrationSource } from '../../migrations';

/** knex's default, which `svapi migrate` and `npx knex migrate:*` (knexfile.js) both use. */
const MIGRATIONS_TABLE = 'knex_migrations';

export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = await knex.migrate.latest({ migrationSource });
  return applied as string[];
}

export async function migrateRollbackAll(knex: Knex): Promise<string[]> {
  const [, undone] = await knex.migrate.rollback({ migrationSource }, true);
  return undone as string[];
}

/**
 * The migrations not yet applied, read without writing (knex's own `migrate.list` creates its
 * tables when they are missing, which a read-only check must not do).
 */
export async function pendingMigrations(knex: Knex): Promise<string[]> {
  if (!(await knex.schema.hasTable(MIGRATIONS_TABLE))) return migrationNames();
  const done = new Set<string>(await knex(MIGRATIONS_TABLE).pluck('name'));
  return migrationNames().filter((name) => !done.has(name));
}

/** True when every migration has run (readiness). */
export async function schemaIsCurrent(knex: Knex): Promise<boolean> {
  return (await pendingMigrations(knex)).length === 0;
}

export class SchemaNotCurrentError extends Error {}

/**
 * Throws, saying what is wrong and the command that fixes it, unless every migration has run:
 * the commands that read or write the tables call this first rather than fail on raw SQL.
 */
export async function requireCurrentSchema(knex: Knex, where: string): Promise<void> {
  const pending = await pendingMigrations(knex);
  if (!pending.length) return;
  const total = migrationNames().length;
  const what = pending.length === total
    ? 'has no svapi schema'
    : `has an older svapi schema (${pending.length} of ${total} migrations not applied: ${pending.join(', ')})`;
  throw new SchemaNotCurrentError(`The database at ${where} ${what}; run \`svapi migrate\` (or \`npx knex migrate:latest\`) first.`);
}
