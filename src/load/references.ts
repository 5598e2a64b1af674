import type { Knex } from 'knex';
import { SPEC_BY_FILE, idColumn, type FileSpec } from './files';
import { stageTable } from './stage';

/**
 * Runs `insert` (which moves `spec`'s stage into its table) with the table's foreign keys checked
 * once for the whole stage instead of once per row, where the session may do so.
 *
 * Postgres checks a foreign key with a trigger per inserted row; for a million globals with
 * four references that is most of the insert's time. A session that may set
 * `session_replication_role` (a superuser, or a role granted it) switches those triggers off for
 * the insert and then, when it inserted anything, does their work in bulk: it locks every
 * referenced row FOR KEY SHARE, as each per-row check would (so no concurrent load can remove it
 * before this one commits), and fails when one is missing. Other sessions keep their triggers;
 * here they come back right after.
 */
export async function withBulkReferenceCheck<T extends { inserted: number }>(
  trx: Knex.Transaction,
  spec: FileSpec,
  insert: () => Promise<T>,
): Promise<T> {
  if (!(await trySetReplicaRole(trx))) return insert();
  const result = await insert();
  await trx.raw('SET LOCAL session_replication_role = DEFAULT');
  if (result.inserted > 0) await lockReferenced(trx, spec);
  return result;
}

async function lockReferenced(trx: Knex.Transaction, spec: FileSpec): Promise<void> {
  for (const column of spec.columns) {
    if (!column.ref) continue;
    const target = SPEC_BY_FILE.get(column.ref)!;
    const id = idColumn(target).db;
    const r = await trx.raw(`SELECT count(*)::int AS missing
      FROM (SELECT DISTINCT ${column.db} AS id FROM ${stageTable(spec)} WHERE ${column.db} IS NOT NULL) s
      WHERE NOT EXISTS (SELECT 1 FROM ${target.table} r WHERE r.${id} = s.id FOR KEY SHARE)`);
    const missing: number = r.rows[0].missing;
    if (missing > 0) {
      throw new Error(`${missing} ${target.table} row(s) that ${spec.file} refers to (${column.name}) were removed while it was loading; nothing was loaded`);
    }
  }
}

/** False when this session may not switch triggers off (no superuser, no grant). */
async function trySetReplicaRole(trx: Knex.Transaction): Promise<boolean> {
  await trx.raw('SAVEPOINT svapi_replica_role');
  try {
    await trx.raw('SET LOCAL session_replication_role = replica');
  } catch (e) {
    if ((e as { code?: string }).code !== '42501') throw e;
    await trx.raw('ROLLBACK TO SAVEPOINT svapi_replica_role');
    return false;
  }
  await trx.raw('RELEASE SAVEPOINT svapi_replica_role');
  return true;
}
