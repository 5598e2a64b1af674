// A DBA who knows knex runs knex's own CLI from a checkout: knexfile.js gives it svapi's
// connection, migrations and seed (the sample dataset, through the loader).
import fs from 'node:fs';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from './support/db';
import { run } from './support/cli';
import { migrationNames } from '../migrations';
import { pendingMigrations } from '../src/db/migrate';
import { FILES } from '../src/load/files';
import { SAMPLE_DATA_DIR } from '../seeds/sample';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase({ migrate: false });
});
afterAll(() => db.destroy());

const knex = (args: string[], env: NodeJS.ProcessEnv = { DATABASE_URL: db.url }) => run('npx', ['knex', ...args], env);

/** Rows of each sample file that has no quoted cells (so one line is one record), by table. */
const sampleRows = FILES
  .map((spec) => ({ table: spec.table, text: fs.readFileSync(path.join(SAMPLE_DATA_DIR, spec.file), 'utf8') }))
  .filter(({ text }) => !text.includes('"'))
  .map(({ table, text }) => ({ table, rows: text.trim().split('\n').length - 1 }));

async function counts(): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const { table } of sampleRows) result[table] = Number((await db.knex(table).count({ n: '*' }))[0].n);
  return result;
}

/** stderr without npm's own warnings about the machine's npm configuration. */
const ownLines = (stderr: string) => stderr.split('\n').filter((l) => l && !l.startsWith('npm warn'));

test('npx knex migrate:latest, migrate:list, seed:run and migrate:rollback work on svapi\'s schema', async () => {
  const names = migrationNames();

  // Before the migrations: the seed says so in one line (no SQL, no stack), as `svapi load` does.
  const early = await knex(['seed:run']);
  expect([early.code, ownLines(early.stderr), early.stdout]).toEqual([1,
    [`svapi: The database at ${db.url} has no svapi schema; run \`svapi migrate\` (or \`npx knex migrate:latest\`) first.`], '']);

  const latest = await knex(['migrate:latest']);
  expect([latest.code, latest.stdout]).toEqual([0, expect.stringContaining(`Batch 1 run: ${names.length} migrations`)]);
  // The same bookkeeping as `svapi migrate`: nothing is left for it to do.
  expect(await pendingMigrations(db.knex)).toEqual([]);
  for (const table of ['dev_keys', 'data_version', ...FILES.map((f) => f.table)]) expect([table, await db.knex.schema.hasTable(table)]).toEqual([table, true]);
  const list = await knex(['migrate:list']);
  expect(list.stdout).toContain(`Found ${names.length} Completed Migration file/files.\n${names.join('\n')}\n`);
  expect(list.stdout).toContain('No Pending Migration files Found.');

  const seeded = await knex(['seed:run']);
  expect([seeded.code, seeded.stdout]).toEqual([0, expect.stringContaining('Ran 1 seed files')]);
  expect(sampleRows.length).toBeGreaterThan(3);
  const expected = Object.fromEntries(sampleRows.map(({ table, rows }) => [table, rows]));
  expect(await counts()).toEqual(expected);
  // Through the loader: upserts, so seeding again changes nothing.
  expect((await knex(['seed:run'])).code).toBe(0);
  expect(await counts()).toEqual(expected);

  const rolledBack = await knex(['migrate:rollback']);
  expect([rolledBack.code, rolledBack.stdout]).toEqual([0, expect.stringContaining(`Batch 1 rolled back: ${names.length} migrations`)]);
  for (const table of ['dev_keys', 'data_version', ...FILES.map((f) => f.table)]) expect([table, await db.knex.schema.hasTable(table)]).toEqual([table, false]);
  expect(await pendingMigrations(db.knex)).toEqual(names);
}, 180_000); // six runs of knex's CLI, each starting Node and tsx

test('without DATABASE_URL the knex commands say what to set', async () => {
  const result = await knex(['migrate:latest'], { DATABASE_URL: '' });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('DATABASE_URL is not set: the knex commands work on a Postgres server');
  expect(result.stderr).toContain('npx svapi migrate');
});
