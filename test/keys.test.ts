import { freshDatabase, type TestDatabase } from './support/db';
import { activeKeyHash, createKey, keyMatches, listKeys, revokeKey } from '../src/auth/keys';
import { serviceAccepts } from './support/keys';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.destroy());

test('a created key checks, is listed without its secret, and fails once revoked', async () => {
  const { devId, devKey } = await createKey(db.knex, 'partner A');
  expect(Buffer.from(devKey, 'base64url').length).toBeGreaterThanOrEqual(16);
  expect(await serviceAccepts(db, devId, devKey)).toBe(true);

  const listed = await listKeys(db.knex);
  expect(listed).toEqual([{ devId, name: 'partner A', createdAt: expect.stringMatching(/Z$/), revokedAt: null }]);
  expect(JSON.stringify(listed)).not.toContain(devKey);

  const other = await createKey(db.knex, 'partner A2');
  const revoked = await revokeKey(db.knex, devId);
  expect(revoked).toEqual({ outcome: 'revoked', revokedAt: expect.stringMatching(/Z$/) });
  expect(await serviceAccepts(db, devId, devKey)).toBe(false);
  // Only that key: another one still checks and is not listed as revoked.
  expect(await serviceAccepts(db, other.devId, other.devKey)).toBe(true);
  expect((await listKeys(db.knex)).find((k) => k.devId === other.devId)!.revokedAt).toBeNull();
  expect((await listKeys(db.knex))[0].revokedAt).toBe((revoked as { revokedAt: string }).revokedAt);
});

test('revoking twice keeps the first time and says so; an unknown DevID is unknown', async () => {
  const { devId } = await createKey(db.knex, 'partner E');
  const first = await revokeKey(db.knex, devId);
  await db.knex('dev_keys').where({ dev_id: devId }).update({ revoked_at: db.knex.raw("revoked_at - interval '1 hour'") });
  const earlier = (await listKeys(db.knex)).find((k) => k.devId === devId)!.revokedAt;
  expect(earlier).not.toBe((first as { revokedAt: string }).revokedAt);
  expect(await revokeKey(db.knex, devId)).toEqual({ outcome: 'already-revoked', revokedAt: earlier });
  expect((await listKeys(db.knex)).find((k) => k.devId === devId)!.revokedAt).toBe(earlier);
  expect(await revokeKey(db.knex, 999999)).toEqual({ outcome: 'unknown' });
});

test('only the hash is stored', async () => {
  const { devId, devKey } = await createKey(db.knex, 'partner B');
  const row = await db.knex('dev_keys').where({ dev_id: devId }).first();
  expect(JSON.stringify(row)).not.toContain(devKey);
  expect(Buffer.isBuffer(row.key_hash)).toBe(true);
  expect(row.key_hash.length).toBe(32);
});

test('wrong key, unknown id, out-of-range id and empty key all fail', async () => {
  const a = await createKey(db.knex, 'partner C');
  const b = await createKey(db.knex, 'partner D');
  expect(a.devKey).not.toBe(b.devKey);
  expect(await serviceAccepts(db, a.devId, b.devKey)).toBe(false);
  expect(await serviceAccepts(db, 424242, a.devKey)).toBe(false);
  expect(await serviceAccepts(db, 2 ** 31, a.devKey)).toBe(false);
  expect(await serviceAccepts(db, a.devId, '')).toBe(false);
  expect(await serviceAccepts(db, a.devId, a.devKey + ' ')).toBe(false);
});

test('a key needs a name: an empty or blank one is refused and nothing is stored; a name is kept trimmed', async () => {
  const before = (await listKeys(db.knex)).length;
  await expect(createKey(db.knex, '')).rejects.toThrow('a key needs a non-empty name');
  await expect(createKey(db.knex, ' \t ')).rejects.toThrow('a key needs a non-empty name');
  expect(await listKeys(db.knex)).toHaveLength(before);
  const { devId } = await createKey(db.knex, '  partner F  ');
  expect((await listKeys(db.knex)).find((k) => k.devId === devId)!.name).toBe('partner F');
});

test('keys are listed in the order they were made, a revoked one in its place', async () => {
  const made = [await createKey(db.knex, 'partner G'), await createKey(db.knex, 'partner H'), await createKey(db.knex, 'partner I')];
  await revokeKey(db.knex, made[0].devId);
  const ids = (await listKeys(db.knex)).map((k) => k.devId);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(ids.slice(-3)).toEqual(made.map((k) => k.devId));
});

test('the key hash the embedded start checks its kept credential with: only for an unrevoked, existing, 32-bit DevID', async () => {
  const { devId, devKey } = await createKey(db.knex, 'partner J');
  const stored = await activeKeyHash(db.knex, devId);
  expect(keyMatches(devKey, stored)).toBe(true);
  expect(keyMatches(`${devKey}x`, stored)).toBe(false);
  for (const other of [424242, 2 ** 31, -(2 ** 31) - 1, 1.5, Number.NaN]) {
    expect({ other, hash: await activeKeyHash(db.knex, other) }).toEqual({ other, hash: undefined });
  }
  await revokeKey(db.knex, devId);
  expect(await activeKeyHash(db.knex, devId)).toBeUndefined();
  expect(keyMatches(devKey, await activeKeyHash(db.knex, devId))).toBe(false);
});

test('no stored hash matches no key, not even the text the dummy hash is made of', async () => {
  const { devKey } = await createKey(db.knex, 'partner K');
  for (const presented of [devKey, 'no such key', '']) expect(keyMatches(presented, undefined)).toBe(false);
  // Through the service: an unknown DevID is refused whatever key comes with it.
  expect(await serviceAccepts(db, 424243, 'no such key')).toBe(false);
});
