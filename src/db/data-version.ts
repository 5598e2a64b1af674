import type { Knex } from 'knex';
import { readRows, type Statement } from './queries/statements';

/** The channel a load notifies when it commits a change; the payload is the new version. */
export const DATA_CHANGED_CHANNEL = 'svapi_data_changed';

/**
 * Marks the data as changed, inside the transaction that changed it: the version goes up and the
 * notification is sent, both only when that transaction commits.
 */
export async function bumpDataVersion(trx: Knex.Transaction): Promise<number> {
  const r = await trx.raw('UPDATE data_version SET version = version + 1, changed_at = now() RETURNING version');
  const version = Number(r.rows[0].version);
  await trx.raw('SELECT pg_notify(?, ?)', [DATA_CHANGED_CHANNEL, String(version)]);
  return version;
}

const VERSION: Statement = { name: 'data_version', text: 'SELECT version FROM data_version' };

/** The data's version, read by the service (on its reads' pool). */
export async function readDataVersion(knex: Knex): Promise<number> {
  const [[version]] = await readRows(knex, VERSION, []);
  return Number(version);
}
