import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, SVAPI_COMPILED, runCli } from './support/cli';
import { freshDatabase } from './support/db';
import { spawnServe, type SpawnedServe } from './support/spawn-serve';

// The other tests run svapi from source; this one builds dist/ (`npm run build`) as it is now
// and runs the installed bin, bin/svapi.js, which runs the compiled JavaScript.
beforeAll(() => {
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.status).toBe(0);
}, 180_000);

test('the build compiles the CLI, the migrations and the sample seed', () => {
  for (const file of ['dist/src/cli.js', 'dist/migrations/index.js', 'dist/seeds/sample.js']) {
    expect(fs.existsSync(path.join(ROOT, file))).toBe(true);
  }
});

test('`svapi --help` from the compiled bin lists the commands', async () => {
  const help = await runCli(['--help'], {}, SVAPI_COMPILED);
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/^Usage: svapi/);
  for (const command of ['serve', 'migrate', 'load', 'keys']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
});

test('`svapi migrate` from the compiled bin migrates a new database', async () => {
  const db = await freshDatabase({ migrate: false });
  try {
    const migrated = await runCli(['migrate'], { DATABASE_URL: db.url }, SVAPI_COMPILED);
    expect(migrated).toMatchObject({ code: 0, stderr: '' });
    expect(migrated.stdout).toMatch(/applied: .*reference_data.*data_version/);
  } finally {
    await db.destroy();
  }
});

describe('`svapi serve` from the compiled bin', () => {
  let svc: SpawnedServe;
  beforeAll(async () => {
    svc = await spawnServe(['--workers', '1'], {}, SVAPI_COMPILED);
  });
  afterAll(() => svc?.stop());

  test('answers /healthz and GetMonster with its WSDL read from wsdl/', async () => {
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    const monster = await fetch(`${svc.url}/API/hunting.asmx/GetMonster?DevID=${svc.key.devId}&DevKey=${encodeURIComponent(svc.key.devKey)}&MonsterID=1`);
    expect(monster.status).toBe(200);
    expect(await monster.text()).toContain('<MonsterID>1</MonsterID>');
    const wsdl = await fetch(`${svc.url}/API/hunting.asmx?WSDL`);
    expect(wsdl.status).toBe(200);
    expect(await wsdl.text()).toContain('wsdl:definitions');
  });
});
