// `svapi load --if-empty`: what docker-compose's one-shot step runs, so that the sample data goes
// into an empty database only and never over records a team has loaded or changed since.

import path from 'node:path';
import { freshDatabase, type TestDatabase } from './support/db';
import { runCli } from './support/cli';
import { createKey } from '../src/auth/keys';

const SAMPLE = path.join(__dirname, '../seeds/data');
let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.destroy());

const monsterName = async (id: number) => (await db.knex('monsters').where({ monster_id: id }).first('monster_name'))?.monster_name;

test('loads into an empty database (credentials alone do not count), then never over records again', async () => {
  await createKey(db.knex, 'made before any data');
  const first = await runCli(['load', '--if-empty', SAMPLE], { DATABASE_URL: db.url });
  expect([first.code, first.stderr]).toEqual([0, '']);
  expect(first.stdout).toMatch(/^loaded:/);
  expect(await monsterName(1)).toBe('Argonaut');

  // A team's own version of a record with a sample ID.
  await db.knex('monsters').where({ monster_id: 1 }).update({ monster_name: 'Argonaut (ours)' });
  const again = await runCli(['load', '--if-empty', SAMPLE], { DATABASE_URL: db.url });
  expect(again).toEqual({ code: 0, stdout: 'the database already holds records: nothing loaded (--if-empty)\n', stderr: '' });
  expect(await monsterName(1)).toBe('Argonaut (ours)');

  // Without the flag the sample is written back over them (why compose uses the flag).
  const plain = await runCli(['load', SAMPLE], { DATABASE_URL: db.url });
  expect(plain.code).toBe(0);
  expect(await monsterName(1)).toBe('Argonaut');
}, 120_000);
