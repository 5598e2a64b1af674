import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, runCli } from './support/cli';

// What a newcomer runs: `npm start` with no DATABASE_URL, on the embedded database.
let child: ChildProcess;
let dataDir: string;
const lines: string[] = [];
const embeddedEnv = () => ({ DATABASE_URL: '', SVAPI_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });

beforeAll(async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-embedded-'));
  // Open like a home folder, so only the data folder's own permissions keep other users out.
  fs.chmodSync(parent, 0o755);
  dataDir = path.join(parent, 'data');
  child = spawn(process.execPath, [path.join(ROOT, 'bin/svapi.js'), 'serve'], {
    cwd: ROOT,
    // 50 calls at once below: more than the default overload bound.
    env: { ...process.env, ...embeddedEnv(), PORT: '0', HOST: '127.0.0.1', SVAPI_MAX_IN_FLIGHT: '100' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = readline.createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    rl.on('line', (line) => {
      lines.push(line);
      if (line.includes('try: curl')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${lines.join('\n')}`)));
  });
}, 120_000);

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

const printed = (re: RegExp) => lines.map((l) => re.exec(l)).find(Boolean)!;

test('the first start migrates, seeds, and prints the URL and a demo credential', () => {
  expect(printed(/svapi listening on (http:\/\/\S+)/)).toBeTruthy();
  expect(printed(/demo credential: DevID=(\d+) DevKey=(\S+)/)).toBeTruthy();
  expect(fs.existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
});

test('the embedded database answers 50 concurrent requests without error', async () => {
  const url = printed(/svapi listening on (http:\/\/\S+)/)[1];
  const [, devId, devKey] = printed(/demo credential: DevID=(\d+) DevKey=(\S+)/);
  const calls = Array.from({ length: 50 }, (_, i) => {
    const op = i % 2 ? `GetMonster?MonsterID=${1 + (i % 30)}` : `GetMonsterGlobals?MonsterID=5&NumberOfGlobals=${1 + i}`;
    return fetch(`${url}/API/hunting.asmx/${op}&DevID=${devId}&DevKey=${encodeURIComponent(devKey)}`)
      .then(async (r) => ({ status: r.status, body: await r.text() }));
  });
  const results = await Promise.all(calls);
  expect(results.filter((r) => r.status !== 200)).toEqual([]);
  expect(results[1].body).toContain('<MonsterID>2</MonsterID>');
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

/** Files and folders under `dir` (and itself) that a group or other user may write. */
function groupOrWorldWritable(dir: string): string[] {
  const all = [dir, ...fs.readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) => path.join(e.parentPath, e.name))];
  return all.filter((f) => (fs.lstatSync(f).mode & 0o022) !== 0 && !fs.lstatSync(f).isSymbolicLink());
}

/** Connects to `url` with pg and reads dev_keys, as the given user (undefined: this one). */
function tryConnect(url: string, asUser?: number): { status: number | null; output: string } {
  const script = `const { Client } = require(${JSON.stringify(require.resolve('pg'))});
const c = new Client({ connectionString: process.argv[1] });
c.connect().then(() => c.query('select count(*) from dev_keys')).then((r) => { console.log('read', r.rows[0].count); return c.end(); })
  .catch((e) => { console.log(e.code ?? e.message); process.exit(1); });`;
  const command = asUser === undefined ? [process.execPath] : ['setpriv', `--reuid=${asUser}`, `--regid=${asUser}`, '--clear-groups', process.execPath];
  const r = spawnSync(command[0], [...command.slice(1), '-e', script, url], { encoding: 'utf8', cwd: '/' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

test('another local user cannot connect to the embedded database', () => {
  const state = JSON.parse(fs.readFileSync(path.join(dataDir, 'svapi-server.json'), 'utf8'));
  // The owner reads it through the URL of the state file...
  expect(tryConnect(state.url)).toMatchObject({ status: 0, output: expect.stringMatching(/^read \d+/) });
  if (!asRoot) {
    console.warn('skipped the other-user connection attempt: it needs root to run as nobody');
    return;
  }
  // ...another user, given the same URL, is refused by the file system.
  expect(tryConnect(state.url, NOBODY)).toEqual({ status: 1, output: 'EACCES\n' });
});

test('no file of a new data folder is group- or world-writable', () => {
  expect(groupOrWorldWritable(dataDir)).toEqual([]);
  expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
});

test('a data folder of an earlier version, with 0666 files, is made owner-only on start', async () => {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
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
