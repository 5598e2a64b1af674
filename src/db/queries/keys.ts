import type { Knex } from 'knex';
import { readRows, type Statement } from './statements';
import { isXsdInt } from '../../xsd/values';

const ACTIVE_KEY: Statement = { name: 'active_key', text: 'SELECT key_hash FROM dev_keys WHERE dev_id = $1 AND revoked_at IS NULL' };

/**
 * The service's lookup of a DevID's unrevoked key hash (auth/keys.ts has the same for the CLI's
 * knex): on the reads' pool, as it is on a request's path whenever the key cache misses.
 */
export async function readActiveKeyHash(knex: Knex, devId: number): Promise<Buffer | undefined> {
  if (!isXsdInt(devId)) return undefined;
  const [row] = await readRows(knex, ACTIVE_KEY, [devId]);
  return row ? (row[0] as Buffer) : undefined;
}
