import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, SVAPI_SOURCE, runCli } from './support/cli';

// What a newcomer runs: `npm start` with no DATABASE_URL, on the embedded database.
let child: ChildProcess;
let dataDir: string;
const lines: string[] = [];
const embeddedEnv = () => ({ DATABASE_URL: '', SVAPI_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });

beforeAll(async () => {
  dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-embedded-')), 'data');
  child = spawn(process.execPath, [...SVAPI_SOURCE, 'serve'], {
    cwd: ROOT,
    env: { ...process.env, ...embeddedEnv(), PORT: '0', HOST: '127.0.0.1' },
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
