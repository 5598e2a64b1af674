// SVAPI_MAX_RESULTS (CONTRACT §5): every list result holds at most that many records, the first
// ones in the result's own order. The sample data holds fewer than the default 1000 of everything,
// so only a service with a small bound shows that it is applied.

import { freshDatabase, type TestDatabase } from './support/db';
import { serveOver, type ServedApp } from './support/serve';
import { BINDINGS, call, readResult } from './support/bindings';
import { createKey } from '../src/auth/keys';

const MAX = 5;

let db: TestDatabase;
let capped: ServedApp;
let uncapped: ServedApp;
let credentials: { DevID: string; DevKey: string };

beforeAll(async () => {
  db = await freshDatabase({ seed: true });
  const key = await createKey(db.knex, 'max results');
  credentials = { DevID: String(key.devId), DevKey: key.devKey };
  capped = await serveOver(db, { SVAPI_MAX_RESULTS: String(MAX) });
  uncapped = await serveOver(db);
});
afterAll(async () => {
  await capped?.close();
  await uncapped?.close();
  await db?.destroy();
});

const LISTS = [
  ['/api/weapons.asmx', 'GetWeapons', { SearchWord: '' }],
  ['/api/weapons.asmx', 'GetWeapons', { SearchWord: 'a' }],
  ['/api/item.asmx', 'FindItems', { SearchWord: '' }],
  ['/api/item.asmx', 'FindItems', { SearchWord: 'e' }],
  ['/API/hunting.asmx', 'GetMonsters', { SearchWord: '' }],
  ['/api/auction.asmx', 'GetAuctionCategories', {}],
] as const;

/** The records of a list answer, each as the text of its fields in order. */
async function records(app: ServedApp, binding: (typeof BINDINGS)[number], path: string, op: string, params: Record<string, string>): Promise<string[]> {
  const answer = await call(app.url, binding, path, op, { ...credentials, ...params });
  expect(answer.status).toBe(200);
  return readResult(answer.body).children.map((record) => JSON.stringify(record));
}

describe.each(BINDINGS)('%s', (binding) => {
  test.each(LISTS)(`%s %s %j: the first ${MAX} records of the full list, no more`, async (path, op, params) => {
    const all = await records(uncapped, binding, path, op, params);
    // The bound has to cut something for the test to show anything.
    expect(all.length).toBeGreaterThan(MAX);
    expect(await records(capped, binding, path, op, params)).toEqual(all.slice(0, MAX));
  });
});
