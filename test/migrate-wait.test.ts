import { spawn } from 'node:child_process';
import { freshDatabase, type TestDatabase } from './support/db';
import { ROOT, SVAPI_SOURCE, runCli, type CliResult } from './support/cli';
import { TcpProxy } from './support/tcp-proxy';
import { freePort } from './support/redis-server';
import { pendingMigrations } from '../src/db/migrate';
import { migrationNames } from '../migrations';
import { CONFIG_EXIT_CODE } from '../src/config';
import { onServer } from './support/server-only';

// `svapi migrate --wait`, as docker-compose.yml runs it next to a Postgres that is still starting:
// the database is reached through a relay on a loopback port that starts listening later.
const CLI_MS = 120_000;

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase({ migrate: false });
});
afterAll(() => db.destroy());

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('migrate --wait waits for a database that starts listening later, says so once, then migrates it', async () => {
  const target = new URL(db.url);
  const late = new TcpProxy({ host: target.hostname, port: Number(target.port) });
  late.port = await freePort();
  const url = late.urlFor(db.url);
  const child = spawn(process.execPath, [...SVAPI_SOURCE, 'migrate', '--wait', '90'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result: CliResult = { code: null, stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (result.stdout += d));
  const exited = new Promise<CliResult>((resolve) => child.once('close', (code) => resolve({ ...result, code })));
  // The relay listens only once migrate has said it waits: its first connection was refused.
  const saidWaiting = new Promise<boolean>((resolve) => {
    child.stderr.on('data', (d) => {
      result.stderr += d;
      if (result.stderr.includes('waiting up to')) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  try {
    expect(await saidWaiting).toBe(true);
    await late.start();
    const done = await exited;
    expect(done.stderr).toBe([
      `waiting up to 90 s for the database at ${url} to accept connections (connect ECONNREFUSED 127.0.0.1:${late.port}) ...`,
      `the database at ${url} accepts connections`,
      '',
    ].join('\n'));
    expect(done).toMatchObject({ code: 0, stdout: `applied: ${migrationNames().join(', ')}\n` });
    expect(await pendingMigrations(db.knex)).toEqual([]);
  } finally {
    child.kill();
    await late.stop();
  }
}, CLI_MS);

test('when nothing listens for --wait seconds, one line names the database (not its password) and what refused, exit 1', async () => {
  const port = await freePort();
  const result = await runCli(['migrate', '--wait', '1'], { DATABASE_URL: `postgres://svapi:secret@127.0.0.1:${port}/svapi` });
  const where = escape(`postgres://svapi:***@127.0.0.1:${port}/svapi`);
  const refused = escape(`connect ECONNREFUSED 127.0.0.1:${port}`);
  expect(result.stderr).toMatch(new RegExp([
    `^waiting up to 1 s for the database at ${where} to accept connections \\(${refused}\\) \\.\\.\\.`,
    `svapi: the database at ${where} did not accept a connection within 1 s: ${refused}`,
    '$',
  ].join('\n')));
  expect(result.code).toBe(1);
}, CLI_MS);

test('without --wait a refused connection is not waited for', async () => {
  const port = await freePort();
  const result = await runCli(['migrate'], { DATABASE_URL: `postgres://svapi@127.0.0.1:${port}/svapi` });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
  expect(result.stderr).not.toContain('waiting');
}, CLI_MS);

test('--wait takes whole seconds', async () => {
  const result = await runCli(['migrate', '--wait', 'soon'], { DATABASE_URL: db.url });
  expect(result.stderr).toContain("option '--wait <seconds>' argument 'soon' is invalid. seconds is an integer 0..3600");
  // A bad option is a configuration mistake (README: Configuration).
  expect(result.code).toBe(CONFIG_EXIT_CODE);
}, CLI_MS);

// A server that answers with a refusal waiting does not mend (here an unknown database; the
// embedded one takes any name) fails at once, as without --wait.
onServer('a server that refuses for good is not waited for', async () => {
  const url = new URL(db.url);
  url.pathname = '/svapi_no_such_database';
  const result = await runCli(['migrate', '--wait', '90'], { DATABASE_URL: url.toString() });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('database "svapi_no_such_database" does not exist');
  expect(result.stderr).not.toContain('waiting');
}, CLI_MS);
