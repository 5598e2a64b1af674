// A DBA on knex's conventions: `npx knex migrate:make` writes a JavaScript migration into
// migrations/, which knex's CLI and `svapi migrate` both apply and knex rolls back. Run in a copy
// of the project (its node_modules linked), so the new migration touches no other test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from './support/db';
import { ROOT, run } from './support/cli';
import { migrationNames } from '../migrations';

let db: TestDatabase;
let copy: string;
beforeAll(async () => {
  db = await freshDatabase({ migrate: false });
  copy = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-dba-'));
  for (const entry of ['package.json', 'knexfile.js', 'tsconfig.json', 'bin', 'src', 'migrations', 'seeds', 'wsdl']) {
    fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
});
afterAll(async () => {
  await db?.destroy();
  if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

/** Runs a command in the copy. */
const inCopy = (command: string, args: string[]) => run('sh', ['-c', `cd "$0" && exec "$@"`, copy, command, ...args], { DATABASE_URL: db.url });
const knex = (...args: string[]) => inCopy('npx', ['knex', ...args]);
const svapi = (...args: string[]) => inCopy(process.execPath, ['bin/run-ts.js', 'src/cli.ts', ...args]);
const hasTable = () => db.knex.schema.hasTable('dba_notes');

test('migrate:make writes a migration that knex migrate:latest and svapi migrate apply, and migrate:rollback undoes', async () => {
  expect((await svapi('migrate')).code).toBe(0);

  const made = await knex('migrate:make', 'add_notes');
  expect(made.code).toBe(0);
  const file = fs.readdirSync(path.join(copy, 'migrations')).find((f) => f.endsWith('_add_notes.js'));
  expect(file).toBeDefined();
  expect(made.stdout).toContain(`Created Migration: ${path.join(copy, 'migrations', file!)}`);
  const name = file!.replace(/\.js$/, '');
  // What the DBA writes into the generated file: knex's own template, filled in.
  const generated = fs.readFileSync(path.join(copy, 'migrations', file!), 'utf8');
  expect(generated).toMatch(/exports\.up = function\(knex\)/);
  fs.writeFileSync(path.join(copy, 'migrations', file!), generated
    .replace(/exports\.up = function\(knex\) \{/, "$&\n  return knex.schema.createTable('dba_notes', (t) => { t.increments('id'); t.text('note'); });")
    .replace(/exports\.down = function\(knex\) \{/, "$&\n  return knex.schema.dropTable('dba_notes');"));

  const listed = await knex('migrate:list');
  expect(listed.stdout).toContain(`Found 1 Pending Migration file/files.\n${name}\n`);
  const latest = await knex('migrate:latest');
  expect([latest.code, latest.stdout]).toEqual([0, expect.stringContaining('Batch 2 run: 1 migrations')]);
  expect(await hasTable()).toBe(true);

  const rolledBack = await knex('migrate:rollback');
  expect([rolledBack.code, rolledBack.stdout]).toEqual([0, expect.stringContaining('Batch 2 rolled back: 1 migrations')]);
  expect(await hasTable()).toBe(false);

  const applied = await svapi('migrate');
  expect([applied.code, applied.stdout.trim()]).toEqual([0, `applied: ${name}`]);
  expect(await hasTable()).toBe(true);
  // The schema counts the new migration: the commands that need it current run.
  expect((await svapi('keys', 'list')).code).toBe(0);
  expect((await knex('migrate:rollback')).code).toBe(0);
  expect(await hasTable()).toBe(false);
  const older = await svapi('keys', 'list');
  expect([older.code, older.stderr.trim()]).toEqual([1, expect.stringContaining(`1 of ${migrationNames().length + 1} migrations not applied: ${name}`)]);
}, 240_000); // nine runs of knex's CLI or svapi, each starting Node and tsx
