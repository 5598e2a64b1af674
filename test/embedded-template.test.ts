// The first start's embedded database: made once (as `npm run build` does), copied into each new
// data folder as its owner's only, and not used once what shapes it (a migration) changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, run } from './support/cli';
import { currentTemplate, templateKey } from '../src/db/embedded-template';
import { migrationNames, migrationSpecs } from '../migrations';

let tmp: string;
let root: string;
/** Runs test/support/embedded-template-run.ts; its JSON answer. */
async function child(...args: string[]): Promise<Record<string, unknown>> {
  const result = await run(process.execPath, [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'test/support/embedded-template-run.ts'), ...args]);
  expect([result.code, result.stderr]).toEqual([0, '']);
  return JSON.parse(result.stdout);
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-template-'));
  root = path.join(tmp, 'template');
  expect(await child('build', root)).toEqual({ built: true });
}, 300_000); // PGlite's initdb: seconds of CPU, more on a loaded machine
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('a new data folder is a copy of the template: migrated, with the sample data, no credential, its owner\'s only', async () => {
  expect(currentTemplate(root)).toBe(path.join(root, 'data'));
  // Not made again while current.
  expect(await child('build', root)).toEqual({ built: false });
  const dir = path.join(tmp, 'data');
  expect(await child('open', root, dir)).toEqual({
    created: true, fromTemplate: true, migrations: migrationNames(), monsters: expect.any(Number), devKeys: 0,
  });
  expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  const open = fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isSymbolicLink() && fs.statSync(path.join(e.parentPath, e.name)).mode & 0o077)
    .map((e) => path.join(e.parentPath, e.name));
  expect(open).toEqual([]);
}, 120_000);

test('a template made from other migrations is not used: the folder is created as before', async () => {
  const other = [...migrationSpecs(), { file: '29991231000000_later', path: path.join(ROOT, 'migrations/index.ts') }];
  expect(templateKey(other)).not.toBe(templateKey());
  fs.writeFileSync(path.join(root, 'key'), `${templateKey(other)}\n`);
  expect(currentTemplate(root)).toBeUndefined();
  expect(await child('open', root, path.join(tmp, 'data-stale'))).toEqual({
    created: true, fromTemplate: false, migrations: [], monsters: 0, devKeys: 0,
  });
}, 300_000);
