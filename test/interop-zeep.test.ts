// Python zeep against the running service: scripts/interop-zeep.py imports each served WSDL and
// calls every operation through both SOAP ports. Needs zeep (Debian: python3-zeep), which CI
// installs; elsewhere the test is skipped, with a message, when no python3 can import zeep.

import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { startService, type TestService } from './support/service';

const SCRIPT = path.resolve(__dirname, '../scripts/interop-zeep.py');

/**
 * The first interpreter that imports zeep. Debian's python3-zeep lands in /usr/bin/python3's
 * dist-packages, which a python3 earlier on PATH (pyenv, a venv) does not see: try both.
 */
function findPython(): string | undefined {
  const candidates = [process.env.PYTHON, 'python3', '/usr/bin/python3'].filter((p): p is string => !!p);
  return [...new Set(candidates)].find((p) => spawnSync(p, ['-c', 'import zeep'], { stdio: 'ignore', timeout: 30_000 }).status === 0);
}

const python = findPython();
const inCi = process.env.CI === 'true';

if (!python && !inCi) {
  console.warn('interop-zeep: skipped, no python3 can `import zeep` (install the Debian package python3-zeep to run it)');
}

const run = python || inCi ? test : test.skip;

let svc: TestService | undefined;
afterAll(async () => {
  await svc?.close();
});

run('zeep calls every operation through both SOAP ports of each served WSDL', async () => {
  if (!python) throw new Error('CI=true but no python3 can `import zeep`: .ci/run must install python3-zeep');
  svc = await startService();
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(python, [SCRIPT, svc!.url, String(svc!.key.devId), svc!.key.devKey], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const output = `${result.stdout}${result.stderr}`;
  expect({ code: result.code, output }).toEqual({ code: 0, output });
  // 4 WSDLs, 16 calls, 2 faults, 8 SOAP 1.1 = 1.2 comparisons, all ok
  expect(result.stdout).toMatch(/^30 passed, 0 failed$/m);
  expect(result.stdout).not.toMatch(/^FAIL/m);
}, 120_000);
