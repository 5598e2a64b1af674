import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, SVAPI_SOURCE, runCli } from './support/cli';
import { need, testIf } from './support/needs';
import { loadConfig } from '../src/config';
import { INTERVAL_TARGETS } from '../src/pipeline/db-queue';

// What a newcomer runs: `npm start` with no DATABASE_URL, on the embedded database.
interface Started {
  child: ChildProcess;
  /** stdout: what the service prints once it listens. */
  lines: string[];
  /** stderr: what it says meanwhile. */
  progress: string[];
}
let started: Started;
let dataDir: string;
const embeddedEnv = () => ({ DATABASE_URL: '', SVAPI_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });

async function startServe(): Promise<Started> {
  const child = spawn(process.execPath, [...SVAPI_SOURCE, 'serve'], {
    cwd: ROOT,
    // 50 calls at once below, at the default overload guards.
    env: { ...process.env, ...embeddedEnv(), PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const progress: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (line) => progress.push(line));
  await new Promise<void>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('try: curl')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${[...progress, ...lines].join('\n')}`)));
  });
  return { child, lines, progress };
}

async function stop({ child }: Started): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-embedded-'));
  // Open like a home folder, so only the data folder's own permissions keep other users out.
  fs.chmodSync(parent, 0o755);
  dataDir = path.join(parent, 'data');
  started = await startServe();
}, 120_000);

afterAll(() => stop(started));

const printed = (re: RegExp) => started.lines.map((l) => re.exec(l)).find(Boolean)!;

test('the first start migrates, seeds, and prints the URL and a demo credential', () => {
  expect(printed(/svapi listening on (http:\/\/\S+)/)).toBeTruthy();
  expect(printed(/demo credential: DevID=(\d+) DevKey=(\S+)/)).toBeTruthy();
  expect(fs.existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
});

test('the first start says what it is doing meanwhile, step by step with timings', () => {
  const steps = [
    `first start: creating the embedded database in ${dataDir} ...`,
    /^first start: created the embedded database \(\d+\.\d s\)$/,
    'first start: creating the schema ...',
    /^first start: applied \d+ migrations \(\d+\.\d s\)$/,
    /^first start: loading the sample data from \S+ \.\.\.$/,
    /^first start: loaded 12 files of sample data \(\d+\.\d s\)$/,
  ];
  expect(started.progress).toEqual(steps.map((s) => (typeof s === 'string' ? s : expect.stringMatching(s))));
});

// The default guards refuse a call only when it would wait for a connection past its deadline
// (5 x SVAPI_QUEUE_TARGET_MS from its arrival): on a machine that serves 50 calls within that,
// every call is answered; on one so busy (CI's test workers at once) that the burst takes longer,
// the calls that would be late may be refused, as the README's Overload section says, and no other way.
const deadlineMs = loadConfig({}).SVAPI_QUEUE_TARGET_MS * INTERVAL_TARGETS;

test('the embedded database answers 50 concurrent requests without error, refusing only calls that would wait past their deadline', async () => {
  const url = printed(/svapi listening on (http:\/\/\S+)/)[1];
  const [, devId, devKey] = printed(/demo credential: DevID=(\d+) DevKey=(\S+)/);
  const began = performance.now();
  const calls = Array.from({ length: 50 }, (_, i) => {
    const op = i % 2 ? `GetMonster?MonsterID=${1 + (i % 30)}` : `GetMonsterGlobals?MonsterID=5&NumberOfGlobals=${1 + i}`;
    const expected = i % 2 ? `<MonsterID>${1 + (i % 30)}</MonsterID>` : '<ArrayOfHuntingGlobal';
    return fetch(`${url}/API/hunting.asmx/${op}&DevID=${devId}&DevKey=${encodeURIComponent(devKey)}`)
      .then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.text(), expect: expected }));
  });
  const results = await Promise.all(calls);
  const tookMs = performance.now() - began;
  const refused = results.filter((r) => r.status === 503);
  expect(results.filter((r) => r.status !== 200 && r.status !== 503)).toEqual([]);
  for (const r of refused) {
    expect(r.retryAfter).toMatch(/^\d+$/);
    expect(r.body).toContain('<Code>ServiceUnavailable</Code>');
  }
  if (refused.length > 0) expect(tookMs).toBeGreaterThan(deadlineMs);
  const answered = results.filter((r) => r.status === 200);
  expect(answered.length).toBeGreaterThan(0);
  for (const r of answered) expect(r.body).toContain(r.expect);
});

test('the CLI works against the running service\'s embedded database', async () => {
  const created = await runCli(['keys', 'create', '--name', 'while running', '--json'], embeddedEnv());
  expect(created.code).toBe(0);
  const { DevID, DevKey } = JSON.parse(created.stdout);
  const url = printed(/svapi listening on (http:\/\/\S+)/)[1];
  const r = await fetch(`${url}/api/auction.asmx/GetAuctionCategories?DevID=${DevID}&DevKey=${encodeURIComponent(DevKey)}`);
  expect(r.status).toBe(200);
  expect(await r.text()).toContain('<ArrayOfAuctionCategory');
});

const demoKeys = async () => JSON.parse((await runCli(['keys', 'list', '--json'], embeddedEnv())).stdout)
  .filter((k: { Name: string }) => k.Name === 'demo (embedded start)');

test('a restart reuses the demo credential, kept owner-only in the data folder; once revoked, the next start makes another', async () => {
  const [, devId, devKey] = printed(/demo credential: DevID=(\d+) DevKey=(\S+)/);
  await stop(started);
  started = await startServe();
  expect(started.progress).toEqual([`opening the embedded database in ${dataDir} ...`, expect.stringMatching(/^opened the embedded database \(\d+\.\d s\)$/)]);
  expect(printed(/demo credential: DevID=(\d+) DevKey=(\S+)/).slice(1)).toEqual([devId, devKey]);
  expect(await demoKeys()).toEqual([expect.objectContaining({ DevID: Number(devId), RevokedAt: null })]);
  const kept = fs.readdirSync(dataDir).filter((f) => f.startsWith('demo-credential'));
  expect(kept).toEqual(['demo-credential.json']);
  expect(fs.statSync(path.join(dataDir, kept[0])).mode & 0o777).toBe(0o600);

  expect((await runCli(['keys', 'revoke', devId], embeddedEnv())).code).toBe(0);
  await stop(started);
  started = await startServe();
  const [, newId, newKey] = printed(/demo credential: DevID=(\d+) DevKey=(\S+)/);
  expect(newId).not.toBe(devId);
  const url = printed(/svapi listening on (http:\/\/\S+)/)[1];
  const r = await fetch(`${url}/api/auction.asmx/GetAuctionCategories?DevID=${newId}&DevKey=${encodeURIComponent(newKey)}`);
  expect(r.status).toBe(200);
  expect((await demoKeys()).map((k: { DevID: number; RevokedAt: string | null }) => [k.DevID, k.RevokedAt === null]))
    .toEqual([[Number(devId), false], [Number(newId), true]]);
}, 120_000);

/** Files and folders under `dir` (and itself) that a group or other user may write. */
function groupOrWorldWritable(dir: string): string[] {
  const all = [dir, ...fs.readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) => path.join(e.parentPath, e.name))];
  return all.filter((f) => (fs.lstatSync(f).mode & 0o022) !== 0 && !fs.lstatSync(f).isSymbolicLink());
}

/** Runs `script` (argument: `arg`) in a new node, as the given user (undefined: this one). */
function runNode(script: string, arg: string, asUser?: number): { status: number | null; output: string } {
  const command = asUser === undefined ? [process.execPath] : ['setpriv', `--reuid=${asUser}`, `--regid=${asUser}`, '--clear-groups', process.execPath];
  const r = spawnSync(command[0], [...command.slice(1), '-e', script, arg], { encoding: 'utf8', cwd: '/' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Connects to `url` with pg and reads dev_keys. */
function tryConnect(url: string): { status: number | null; output: string } {
  return runNode(`const { Client } = require(${JSON.stringify(require.resolve('pg'))});
const c = new Client({ connectionString: process.argv[1] });
c.connect().then(() => c.query('select count(*) from dev_keys')).then((r) => { console.log('read', r.rows[0].count); return c.end(); })
  .catch((e) => { console.log(e.code ?? e.message); process.exit(1); });`, url);
}

/**
 * Opens the Unix socket at `socket` as `asUser`, with node:net alone: that user may not be able to
 * read this checkout (and its pg) at all, as in a clone under a private temporary folder.
 */
function tryOpenSocket(socket: string, asUser: number): { status: number | null; output: string } {
  return runNode(`require('node:net').connect(process.argv[1])
  .on('connect', function () { console.log('connected'); this.destroy(); })
  .on('error', (e) => { console.log(e.code ?? e.message); process.exit(1); });`, socket, asUser);
}

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

const serverState = () => JSON.parse(fs.readFileSync(path.join(dataDir, 'svapi-server.json'), 'utf8'));

test('the owner connects to the embedded database through the URL of its state file', () => {
  expect(tryConnect(serverState().url)).toMatchObject({ status: 0, output: expect.stringMatching(/^read \d+/) });
});

testIf(asRoot)('another local user cannot connect to the embedded database', () => {
  need(asRoot, 'running as another user (nobody) needs root');
  const state = serverState();
  // Given the socket the owner's URL names, another user is refused by the file system.
  expect(state.url).toContain(encodeURIComponent(path.dirname(state.socket)));
  expect(tryOpenSocket(state.socket, NOBODY)).toEqual({ status: 1, output: 'EACCES\n' });
});

test('no file of a new data folder is group- or world-writable', () => {
  expect(groupOrWorldWritable(dataDir)).toEqual([]);
  expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
});

test('a data folder of an earlier version, with 0666 files, is made owner-only on start', async () => {
  await stop(started);
  fs.chmodSync(dataDir, 0o777);
  for (const e of fs.readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() || e.isDirectory()) fs.chmodSync(path.join(e.parentPath, e.name), e.isDirectory() ? 0o777 : 0o666);
  }
  expect(groupOrWorldWritable(dataDir).length).toBeGreaterThan(1000);
  const listed = await runCli(['keys', 'list', '--json'], embeddedEnv());
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout).length).toBeGreaterThan(0);
  expect(groupOrWorldWritable(dataDir)).toEqual([]);
}, 60_000);
