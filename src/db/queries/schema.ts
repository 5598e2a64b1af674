import type { Knex } from 'knex';
import { migrationNames } from '../../../migrations';
import { readRows, type Statement } from './statements';

const HAS_MIGRATIONS: Statement = { name: 'has_migrations', text: "SELECT to_regclass('knex_migrations') IS NOT NULL" };
const APPLIED: Statement = { name: 'applied_migrations', text: 'SELECT name FROM knex_migrations' };

/** The service's readiness check (db/migrate.ts's schemaIsCurrent, on the reads' pool): every migration has run. */
export async function readSchemaIsCurrent(knex: Knex): Promise<boolean> {
  const [[present]] = await readRows(knex, HAS_MIGRATIONS, []);
  if (!present) return false;
  const done = new Set((await readRows(knex, APPLIED, [])).map((r) => r[0]));
  return migrationNames().every((name) => done.has(name));
}
