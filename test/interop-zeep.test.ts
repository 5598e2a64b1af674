// Python zeep against the running service: scripts/interop-zeep.py imports each served WSDL, or
// each legacy-shaped one (test/fixtures/legacy-wsdl) for three namespace forms, and calls every
// operation through both SOAP ports, faults included. Needs zeep (Debian: python3-zeep), which CI
// installs; elsewhere the tests are skipped, with a message, when no python3 can import zeep.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LEGACY_WSDL_DIR, LEGACY_WSDL_NAMES, legacyWsdl } from '../scripts/legacy-wsdl';
import { NAMESPACE_FORMS, serveNamespaceForms, type NamespaceServices } from './support/namespace-forms';

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

let services: NamespaceServices | undefined;
let tmp: string | undefined;
afterAll(async () => {
  await services?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs the script with `args` before the service's URL and credentials; asserts it passed all `expected` checks. */
async function runScript(namespace: (typeof NAMESPACE_FORMS)[number], args: string[], expected: number) {
  if (!python) throw new Error('CI=true but no python3 can `import zeep`: .ci/run must install python3-zeep');
  services ??= await serveNamespaceForms();
  const { svc } = services;
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(python, [SCRIPT, ...args, services!.url(namespace), String(svc.key.devId), svc.key.devKey], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const output = `${result.stdout}${result.stderr}`;
  expect({ code: result.code, output }).toEqual({ code: 0, output });
  expect(result.stdout).toMatch(new RegExp(`^${expected} passed, 0 failed$`, 'm'));
  expect(result.stdout).not.toMatch(/^FAIL/m);
  // every WSDL gave the namespace of the service
  expect(result.stdout.match(/^ok {3}\w+ WSDL: namespace (\S+),/gm)?.map((l) => l.replace(/^.*namespace (\S+),$/, '$1'))).toEqual(Array(4).fill(namespace));
}

// 4 WSDLs, 16 calls (each also against HTTP GET), 6 faults with their detail, 8 SOAP 1.1 = 1.2 comparisons
const CHECKS = 34;

run('zeep calls every operation through both SOAP ports of each served WSDL', async () => {
  await runScript('SVAPI', [], CHECKS);
}, 120_000);

describe.each(NAMESPACE_FORMS)('legacy WSDL fixture, namespace %s', (ns) => {
  run('zeep built from it calls every operation through both SOAP ports, faults with their detail', async () => {
    let dir = LEGACY_WSDL_DIR; // the files as they are: http://tempuri.org/
    if (ns !== 'http://tempuri.org/') {
      tmp ??= fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-legacy-wsdl-'));
      dir = path.join(tmp, encodeURIComponent(ns));
      fs.mkdirSync(dir);
      // the address in the files is not used: the script points each port at the service
      for (const name of LEGACY_WSDL_NAMES) fs.writeFileSync(path.join(dir, `${name}.wsdl`), legacyWsdl(name, ns, 'http://legacy.example'));
    }
    await runScript(ns, ['--wsdl-dir', dir], CHECKS);
  }, 120_000);
});
