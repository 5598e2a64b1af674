// The first start's embedded database: made once (as `npm run build` does), copied into each new
// data folder as its owner's only, and not used once what shapes it (a migration) changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadDatabaseConfig } from '../src/config';
import { createKnex, openDatabase } from '../src/db/connect';
import { startEmbedded } from '../src/db/embedded';
import { buildTemplate, currentTemplate, templateKey } from '../src/db/embedded-template';
import { migrationNames, migrationSpecs } from '../migrations';

let tmp: string;
let root: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-template-'));
  root = path.join(tmp, 'template');
  const built = await buildTemplate(async (dir) => {
    const db = await openDatabase(loadDatabaseConfig({ SVAPI_DATA_DIR: dir, LOG_LEVEL: 'silent' }), 'service');
    await db.close();
  }, root);
  expect(built).toBe(true);
}, 300_000); // PGlite's initdb: seconds of CPU, more on a loaded machine
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('a new data folder is a copy of the template: migrated, with the sample data, no credential, its owner\'s only', async () => {
  expect(await buildTemplate(() => Promise.reject(new Error('not made again while current')), root)).toBe(false);
  const dir = path.join(tmp, 'data');
  const server = await startEmbedded(dir, { template: () => currentTemplate(root) });
  const knex = createKnex(server.url, 'admin', loadDatabaseConfig({ LOG_LEVEL: 'silent' }), true);
  try {
    expect([server.created, server.fromTemplate]).toEqual([true, true]);
    expect(await knex('knex_migrations').orderBy('name').pluck('name')).toEqual(migrationNames());
    expect(Number((await knex('monsters').count({ n: '*' }))[0].n)).toBeGreaterThan(0);
    expect(Number((await knex('dev_keys').count({ n: '*' }))[0].n)).toBe(0);
  } finally {
    await knex.destroy();
    await server.stop();
  }
  expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  const open = fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isSymbolicLink() && fs.statSync(path.join(e.parentPath, e.name)).mode & 0o077)
    .map((e) => path.join(e.parentPath, e.name));
  expect(open).toEqual([]);
}, 120_000);

test('a template made from other migrations is not used: the folder is created as before', async () => {
  const other = [...migrationSpecs(), { file: '29991231000000_later', path: path.join(__dirname, '../migrations/index.ts') }];
  expect(templateKey(other)).not.toBe(templateKey());
  fs.writeFileSync(path.join(root, 'key'), `${templateKey(other)}\n`);
  expect(currentTemplate(root)).toBeUndefined();
  const dir = path.join(tmp, 'data-stale');
  const server = await startEmbedded(dir, { template: () => currentTemplate(root) });
  try {
    expect([server.created, server.fromTemplate]).toEqual([true, false]);
  } finally {
    await server.stop();
  }
}, 300_000);
