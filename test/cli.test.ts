import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from './support/db';
import { runCli } from './support/cli';
import { checkCredentials } from '../src/auth/keys';

let db: TestDatabase;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  db = await freshDatabase({ migrate: false });
  env = { DATABASE_URL: db.url };
});
afterAll(() => db.destroy());

test('migrate brings the schema up to date, then says it is current', async () => {
  const first = await runCli(['migrate'], env);
  expect(first).toMatchObject({ code: 0 });
  expect(first.stdout).toMatch(/applied: .*reference_data/);
  const again = await runCli(['migrate'], env);
  expect(again.stdout).toMatch(/schema already current/);
});

test('keys create --json prints a working credential; list never shows keys; revoke refuses it', async () => {
  const created = await runCli(['keys', 'create', '--name', 'Acme Partner', '--json'], env);
  expect(created.code).toBe(0);
  const { DevID, DevKey } = JSON.parse(created.stdout);
  expect(Number.isInteger(DevID)).toBe(true);
  expect(typeof DevKey).toBe('string');
  expect(await checkCredentials(db.knex, DevID, DevKey)).toBe(true);

  const listed = await runCli(['keys', 'list', '--json'], env);
  expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ devId: DevID, name: 'Acme Partner', revokedAt: null }));
  expect(listed.stdout).not.toContain(DevKey);

  const revoked = await runCli(['keys', 'revoke', String(DevID)], env);
  expect(revoked).toMatchObject({ code: 0 });
  expect(await checkCredentials(db.knex, DevID, DevKey)).toBe(false);

  const unknown = await runCli(['keys', 'revoke', '987654'], env);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/no credential with DevID 987654/);
  const malformed = await runCli(['keys', 'revoke', 'abc'], env);
  expect(malformed.code).not.toBe(0);
});

test('load reports every problem with file:line: column and exits 1 having written nothing', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-cli-'));
  fs.writeFileSync(path.join(dir, 'professions.csv'), 'ProfessionID,ProfessionName\n1,Rifle\nx,Pistol\n1,Again\n');
  const result = await runCli(['load', dir], env);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/professions\.csv:3: ProfessionID: /);
  expect(result.stderr).toMatch(/professions\.csv:4: ProfessionID: /);
  expect(result.stderr).toMatch(/nothing was loaded/);
  expect((await db.knex('professions').count({ n: '*' }))[0].n).toBe('0');
});

test('load writes a valid dataset and prints counts per file', async () => {
  const result = await runCli(['load', path.join(__dirname, '../seeds/data')], env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/hunting_globals\.csv/);
  const { n } = (await db.knex('monsters').count({ n: '*' }))[0];
  expect(Number(n)).toBeGreaterThanOrEqual(30);
});

test('a bad configuration value stops the command with the variable named', async () => {
  const result = await runCli(['migrate'], { ...env, SVAPI_DB_TIMEOUT_MS: 'soon' });
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/SVAPI_DB_TIMEOUT_MS/);
});

test('--help documents every command and the environment', async () => {
  const help = await runCli(['--help']);
  for (const word of ['serve', 'migrate', 'load', 'keys', 'DATABASE_URL', 'SVAPI_MAX_BODY']) expect(help.stdout).toContain(word);
  const keysHelp = await runCli(['keys', '--help']);
  for (const word of ['create', 'list', 'revoke']) expect(keysHelp.stdout).toContain(word);
});
