import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { isXsdInt } from '../xsd/values';

export interface DevKeyInfo {
  devId: number;
  name: string;
  createdAt: string;
  revokedAt: string | null;
}

// Keys carry 256 random bits, so a fast hash is enough: there is nothing to brute-force.
// crypto.hash is the one-shot form: no Hash object per call (it is on every request's path).
const hash = (key: string): Buffer => crypto.hash('sha256', key, 'buffer') as unknown as Buffer;
const DUMMY_HASH = hash('no such key');

export async function createKey(knex: Knex, name: string): Promise<{ devId: number; devKey: string }> {
  if (!name.trim()) throw new Error('a key needs a non-empty name');
  const devKey = crypto.randomBytes(32).toString('base64url');
  const [row] = await knex('dev_keys').insert({ name: name.trim(), key_hash: hash(devKey) }).returning('dev_id');
  return { devId: row.dev_id, devKey };
}

export async function listKeys(knex: Knex): Promise<DevKeyInfo[]> {
  const rows = await knex('dev_keys')
    .select('dev_id', 'name', knex.raw(`${utc('created_at')} AS created_at`), knex.raw(`${utc('revoked_at')} AS revoked_at`))
    .orderBy('dev_id');
  return rows.map((r) => ({ devId: r.dev_id, name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at }));
}

type RevokeResult =
  | { outcome: 'revoked'; revokedAt: string }
  | { outcome: 'already-revoked'; revokedAt: string }
  | { outcome: 'unknown' };

/** Revokes a key; revoking twice keeps the first time, and says so. */
export async function revokeKey(knex: Knex, devId: number): Promise<RevokeResult> {
  const [now] = await knex('dev_keys')
    .where({ dev_id: devId }).whereNull('revoked_at')
    .update({ revoked_at: knex.fn.now() })
    .returning(knex.raw(`${utc('revoked_at')} AS revoked_at`));
  if (now) return { outcome: 'revoked', revokedAt: now.revoked_at };
  const before = await knex('dev_keys').where({ dev_id: devId }).first(knex.raw(`${utc('revoked_at')} AS revoked_at`));
  return before ? { outcome: 'already-revoked', revokedAt: before.revoked_at } : { outcome: 'unknown' };
}

/** The stored hash of an existing, unrevoked DevID's key; undefined for any other DevID. */
export async function activeKeyHash(knex: Knex, devId: number): Promise<Buffer | undefined> {
  if (!isXsdInt(devId)) return undefined;
  const row = await knex('dev_keys').where({ dev_id: devId }).whereNull('revoked_at').first('key_hash');
  return row ? row.key_hash : undefined;
}

/**
 * Compares a presented key with a stored hash in constant time; with no stored hash (unknown
 * or revoked DevID) it compares against a dummy hash so that case costs the same.
 */
export function keyMatches(devKey: string, stored: Buffer | undefined): boolean {
  const matches = crypto.timingSafeEqual(hash(devKey), stored ?? DUMMY_HASH);
  return Boolean(stored) && matches;
}

function utc(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
}
