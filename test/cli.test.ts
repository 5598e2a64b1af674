import fs from 'node:fs';
import net from 'node:net';
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
    const args = [['load', path.join(__dirname, '../seeds/data')], ['keys', 'create', '--name', 'x'], ['keys', 'list'], ['keys', 'revoke', '1'], ['serve', '--workers', '1']];
    const results = await Promise.all(args.map((a) => runCli(a, { ...bareEnv, PORT: '0' })));
    for (const [i, result] of results.entries()) {
      // One line, and `serve` does not start listening.
      expect([args[i], result.code, result.stderr, result.stdout]).toEqual([args[i], 1,
        `svapi: The database at ${bare.url} has no svapi schema; run \`svapi migrate\` (or \`npx knex migrate:latest\`) first.\n`, '']);
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
  expect(await serviceAccepts(db, DevID, DevKey)).toBe(true);

  const listed = await runCli(['keys', 'list', '--json'], env);
  // The same spelling as `keys create --json` (the contract's DevID/DevKey style).
  expect(JSON.parse(listed.stdout)).toContainEqual({ DevID, Name: 'Acme Partner', CreatedAt: expect.stringMatching(/Z$/), RevokedAt: null });
  expect(listed.stdout).not.toContain(DevKey);

  const revoked = await runCli(['keys', 'revoke', String(DevID)], env);
  expect(revoked).toMatchObject({ code: 0 });
  const revokedAt = /^revoked DevID \d+ at (\S+Z)$/m.exec(revoked.stdout)![1];
  expect(await serviceAccepts(db, DevID, DevKey)).toBe(false);
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

test('a bad setting or option stops the command in one line naming it and what it takes, always with exit code 2', async () => {
  const cases: [string[], NodeJS.ProcessEnv, string][] = [
    [['migrate'], { SVAPI_DB_POOL_MAX: 'zero' }, 'svapi: SVAPI_DB_POOL_MAX: "zero" is not an integer from 1 to 1000 (database connections per process; serve with the database on this host: cores x 2 + 1 among its workers, 2 to 10 each)'],
    [['keys', 'list'], { SVAPI_DB_TIMEOUT_MS: 'soon' }, 'svapi: SVAPI_DB_TIMEOUT_MS: "soon" is not an integer of at least 1 (statement time-out in milliseconds)'],
    [['serve'], { SVAPI_TRUST_PROXY: 'maybe' }, 'svapi: SVAPI_TRUST_PROXY: "maybe" is not true or false (or 1/0, yes/no, on/off) (honour X-Forwarded-Proto/Host/For from one proxy in front)'],
    [['serve'], { DATABASE_URL: 'db.example.net:5432' }, 'svapi: DATABASE_URL: the value is not a postgres:// or postgresql:// URL (Postgres URL; unset = embedded PGlite database)'],
    [['serve', '--port', 'x'], {}, "error: option '-p, --port <port>' argument 'x' is invalid. a port is an integer 0..65535"],
    [['keys', 'revoke', 'abc'], {}, "error: command-argument value 'abc' is invalid for argument 'DevID'. a DevID is a 32-bit integer"],
    [['keys', 'revoke', '2147483648'], {}, "error: command-argument value '2147483648' is invalid for argument 'DevID'. a DevID is a 32-bit integer"],
  ];
  const results = await Promise.all(cases.map(([args, extra]) => runCli(args, { ...env, ...extra })));
  for (const [i, [args, , line]] of cases.entries()) {
    expect([args, results[i].code, results[i].stderr]).toEqual([args, 2, `${line}\n`]);
  }
}, SEVERAL_RUNS_MS);

test('a DATABASE_URL naming no database, a closed port or an unknown host: one line saying so, exit code 1', async () => {
  const noDatabase = 'postgres://postgres@127.0.0.1:5432/svapi_no_such_database';
  const urls: [string, RegExp][] = [
    [noDatabase, /database "svapi_no_such_database" does not exist/],
    [`postgres://postgres@127.0.0.1:${await closedPort()}/x`, /connect ECONNREFUSED 127\.0\.0\.1:\d+/],
    ['postgres://postgres@svapi-no-such-host.invalid:5432/x', /getaddrinfo (ENOTFOUND|EAI_AGAIN) svapi-no-such-host\.invalid/],
  ];
  // At the default log level, where knex's pool warnings would show.
  const runs = await Promise.all([
    ...urls.map(([url]) => runCli(['keys', 'list'], { DATABASE_URL: url, LOG_LEVEL: 'info' })),
    runCli(['migrate'], { DATABASE_URL: noDatabase, LOG_LEVEL: 'info' }),
    runCli(['serve', '--workers', '1'], { DATABASE_URL: noDatabase, PORT: '0', LOG_LEVEL: 'info' }),
  ]);
  const expected = [...urls, [noDatabase, urls[0][1]], [noDatabase, urls[0][1]]] as [string, RegExp][];
  for (const [i, [url, reason]] of expected.entries()) {
    const lines = runs[i].stderr.split('\n');
    expect([url, runs[i].code, lines.length, runs[i].stdout]).toEqual([url, 1, 2, '']);
    const prefix = `svapi: cannot connect to the database at ${url}: `;
    expect([url, lines[0].slice(0, prefix.length)]).toEqual([url, prefix]);
    expect(lines[0].slice(prefix.length)).toMatch(new RegExp(`^${reason.source}$`));
  }
}, SEVERAL_RUNS_MS);

test('--version prints the version of package.json', async () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '../package.json'), 'utf8'));
  expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
});

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

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
