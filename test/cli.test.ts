import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from './support/db';
import { runCli } from './support/cli';
import { serviceAccepts } from './support/keys';
import { configReference, DATABASE_SETTINGS } from '../src/config';
import { migrateLatest } from '../src/db/migrate';
import { migrationNames, migrationSource } from '../migrations';
import { FILES } from '../src/load/files';

// Tests that run the CLI several times: each run starts Node and tsx, seconds on a loaded machine.
const SEVERAL_RUNS_MS = 180_000;

let db: TestDatabase;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  db = await freshDatabase({ migrate: false });
  env = { DATABASE_URL: db.url };
});
afterAll(() => db.destroy());

test('on a database never migrated, load and keys say so and name the command that fixes it', async () => {
  const bare = await freshDatabase({ migrate: false });
  try {
    const bareEnv = { DATABASE_URL: bare.url };
    for (const args of [['load', path.join(__dirname, '../seeds/data')], ['keys', 'create', '--name', 'x'], ['keys', 'list'], ['keys', 'revoke', '1']]) {
      const result = await runCli(args, bareEnv);
      expect([args, result.code]).toEqual([args, 1]);
      expect(result.stderr).toContain(`The database at ${bare.url} has no svapi schema; run \`svapi migrate\` (or \`npx knex migrate:latest\`)`);
      expect(result.stderr).not.toMatch(/relation|does not exist/);
    }
    // Nothing was created by asking.
    expect(await bare.knex.schema.hasTable('knex_migrations')).toBe(false);

    await migrateLatest(bare.knex);
    const last = migrationNames().at(-1);
    await bare.knex.migrate.down({ migrationSource });
    const older = await runCli(['keys', 'list'], bareEnv);
    expect(older.code).toBe(1);
    expect(older.stderr).toMatch(new RegExp(`has an older svapi schema \\(1 of \\d+ migrations not applied: ${last}\\); run \`svapi migrate\``));
  } finally {
    await bare.destroy();
  }
}, SEVERAL_RUNS_MS);

test('migrate brings the schema up to date, then says it is current', async () => {
  const first = await runCli(['migrate'], env);
  expect(first).toMatchObject({ code: 0 });
  expect(first.stdout).toMatch(/applied: .*reference_data/);
  const again = await runCli(['migrate'], env);
  expect(again.stdout).toMatch(/schema already current/);
});

test('keys create --json prints a working credential; list never shows keys; revoke refuses it, once', async () => {
  const created = await runCli(['keys', 'create', '--name', 'Acme Partner', '--json'], env);
  expect(created.code).toBe(0);
  const { DevID, DevKey } = JSON.parse(created.stdout);
  expect(Number.isInteger(DevID)).toBe(true);
  expect(typeof DevKey).toBe('string');
  expect(await serviceAccepts(db.knex, DevID, DevKey)).toBe(true);

  const listed = await runCli(['keys', 'list', '--json'], env);
  // The same spelling as `keys create --json` (the contract's DevID/DevKey style).
  expect(JSON.parse(listed.stdout)).toContainEqual({ DevID, Name: 'Acme Partner', CreatedAt: expect.stringMatching(/Z$/), RevokedAt: null });
  expect(listed.stdout).not.toContain(DevKey);

  const revoked = await runCli(['keys', 'revoke', String(DevID)], env);
  expect(revoked).toMatchObject({ code: 0 });
  const revokedAt = /^revoked DevID \d+ at (\S+Z)$/m.exec(revoked.stdout)![1];
  expect(await serviceAccepts(db.knex, DevID, DevKey)).toBe(false);
  const after = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout);
  expect(after).toContainEqual(expect.objectContaining({ DevID, RevokedAt: revokedAt }));

  const again = await runCli(['keys', 'revoke', String(DevID)], env);
  expect(again).toMatchObject({ code: 1, stdout: '' });
  expect(again.stderr).toContain(`DevID ${DevID} was already revoked at ${revokedAt}`);
  expect(JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout)).toContainEqual(expect.objectContaining({ DevID, RevokedAt: revokedAt }));

  const unknown = await runCli(['keys', 'revoke', '987654'], env);
  expect(unknown).toMatchObject({ code: 1, stdout: '' });
  expect(unknown.stderr).toMatch(/no credential with DevID 987654 \(`svapi keys list` shows them\)/);
  const malformed = await runCli(['keys', 'revoke', 'abc'], env);
  expect(malformed.code).not.toBe(0);
}, SEVERAL_RUNS_MS);

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

test('load --verbose tells on stderr how long each phase took', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-cli-'));
  fs.writeFileSync(path.join(dir, 'auction_categories.csv'), 'CategoryID,CategoryName\n7001,Verbose\n');
  const result = await runCli(['load', dir, '--verbose'], env);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/file=auction_categories\.csv rows=1 inserted=1/);
  const lines = result.stderr.trim().split('\n');
  expect(lines.slice(0, 3)).toEqual([
    expect.stringMatching(/^auction_categories\.csv read: \d+\.\d\d s$/),
    expect.stringMatching(/^auction_categories\.csv write: \d+\.\d\d s$/),
    expect.stringMatching(/^commit: \d+\.\d\d s$/),
  ]);
  // ANALYZE only when the load changed a tenth of the table's rows or more.
  expect(lines.slice(3)).toEqual(lines.length > 3 ? [expect.stringMatching(/^analyze: \d+\.\d\d s$/)] : []);
});

test('a bad configuration value stops the command with the variable named', async () => {
  const result = await runCli(['migrate'], { ...env, SVAPI_DB_TIMEOUT_MS: 'soon' });
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/SVAPI_DB_TIMEOUT_MS/);
});

test('the database commands stop on a bad database setting only, not on one only serve reads', async () => {
  const serveOnly = { PORT: 'eighty', SVAPI_MAX_BODY: 'big', SVAPI_PUBLIC_URL: 'not a url' };
  for (const args of [['keys', 'list'], ['migrate'], ['keys', 'create', '--name', 'serve-only settings']]) {
    const result = await runCli(args, { ...env, ...serveOnly });
    expect([args, result.code, result.stderr]).toEqual([args, 0, '']);
  }
  const serve = await runCli(['serve'], { ...env, ...serveOnly });
  expect(serve.code).toBe(2);
  expect(serve.stderr).toMatch(/PORT: /);
  expect(serve.stderr).toMatch(/SVAPI_MAX_BODY: /);
  expect(serve.stderr).toMatch(/SVAPI_PUBLIC_URL: /);
}, SEVERAL_RUNS_MS);

const listed = (help: string, name: string) => new RegExp(`^  ${name} +\\S.*\\[default: `, 'm').test(help);

test('--help documents every command; serve --help every variable, the others the ones they read', async () => {
  const help = await runCli(['--help']);
  for (const word of ['serve', 'migrate', 'load', 'keys']) expect(help.stdout).toContain(word);
  const serveHelp = (await runCli(['serve', '--help'])).stdout;
  for (const v of configReference()) {
    expect([v.name, listed(serveHelp, v.name)]).toEqual([v.name, true]);
    expect(serveHelp).toContain(`${v.description} [default: ${v.default}]`);
  }
  const commands = [['keys'], ['keys', 'list'], ['keys', 'create'], ['keys', 'revoke'], ['migrate'], ['load']];
  const helps = await Promise.all(commands.map((command) => runCli([...command, '--help'])));
  for (const [i, command] of commands.entries()) {
    const text = helps[i].stdout;
    for (const v of configReference()) {
      expect([command, v.name, listed(text, v.name)]).toEqual([command, v.name, (DATABASE_SETTINGS as readonly string[]).includes(v.name)]);
    }
    if (command.join(' ') === 'keys') for (const word of ['create', 'list', 'revoke']) expect(text).toContain(word);
  }
}, SEVERAL_RUNS_MS);

test('load --help describes the dataset folder: every file with its columns, --replace and an example', async () => {
  const help = (await runCli(['load', '--help'])).stdout;
  expect(help).toMatch(/header row/);
  for (const spec of FILES) {
    const entry = new RegExp(`^  ${spec.file} +([^]*?)(?=\\n  \\S|\\n\\n)`, 'm').exec(help);
    expect([spec.file, entry?.[1].split(/,\s+/).map((c) => c.trim())])
      .toEqual([spec.file, spec.columns.map((c) => `${c.name}${c.nullable ? '*' : ''}`)]);
  }
  expect(help).toMatch(/--replace +also remove records/);
  expect(help).toMatch(/With --replace, /);
  expect(help).toMatch(/^ {2}svapi load seeds\/data/m);
  expect(help).not.toMatch(/see README/);
});
