// The ASMX era's clients against the running service, for the three forms a namespace takes
// (ASMX's default http://tempuri.org/, a URI without a trailing slash, the default SVAPI):
// - scripts/interop-axis.sh: Apache Axis 1.4's WSDL2Java imports every served WSDL in both forms
//   (`?wsdl`, `?wsdl=faults`); the typed-fault stubs call every operation over SOAP 1.1, faults
//   arriving as the typed ServiceError;
// - scripts/interop-mono.sh: .NET SoapHttpClientProtocol proxies from Mono's `wsdl`, built from the
//   served WSDL and from the legacy-shaped fixture, call every operation over SOAP 1.1 and 1.2.
// Needs Debian's libaxis-java and a JDK, and mono-devel, which CI installs; elsewhere each part is
// skipped, with a message, when its tools are missing.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startService, type TestService } from './support/service';

const SCRIPTS = path.resolve(__dirname, '../scripts');
const inCi = process.env.CI === 'true';

const onPath = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
const missing = {
  axis: [...['java', 'javac'].filter((t) => !onPath(t)), ...(fs.existsSync('/usr/share/java/axis.jar') || process.env.AXIS_JAVA_DIR ? [] : ['libaxis-java'])],
  mono: ['wsdl', 'mcs', 'mono'].filter((t) => !onPath(t)),
};
const install = { axis: 'libaxis-java and default-jdk-headless', mono: 'mono-devel' };
for (const tool of ['axis', 'mono'] as const) {
  if (missing[tool].length > 0 && !inCi) console.warn(`interop-${tool}: skipped, ${missing[tool].join(', ')} not found (install the Debian packages ${install[tool]} to run it)`);
}
const runIf = (tool: 'axis' | 'mono'): typeof test => (missing[tool].length === 0 || inCi ? test : test.skip);

function run(script: string, args: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(SCRIPTS, script), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, output: `${stdout}${stderr}` }));
  });
}

type Result = { code: number | null; stdout: string; output: string };

/** A failed run fails the test with its whole output: a diff of it would show only its first lines. */
function expectSuccess(result: Result): void {
  if (result.code !== 0) throw new Error(`exit code ${result.code}, the whole output:\n${result.output}`);
}

describe.each([
  ['http://tempuri.org/', 'ASMX default, ends in /'],
  ['http://legacy.example/api', 'a URI without a trailing slash'],
  ['SVAPI', 'the default'],
])('namespace %s (%s)', (namespace) => {
  let svc: TestService;
  // Both clients run at once (each is mostly one busy process), each test awaits its own.
  let axis: Promise<Result> | undefined;
  let mono: Promise<Result> | undefined;
  beforeAll(async () => {
    svc = await startService({ SVAPI_NAMESPACE: namespace });
    const credentials = [svc.url, String(svc.key.devId), svc.key.devKey];
    if (missing.axis.length === 0) axis = run('interop-axis.sh', credentials);
    if (missing.mono.length === 0) mono = run('interop-mono.sh', [...credentials, namespace]);
  });
  afterAll(async () => {
    await Promise.all([axis, mono]);
    await svc?.close();
  });

  runIf('axis')('Axis 1.4 imports every served WSDL, ?wsdl and ?wsdl=faults, and calls every operation over SOAP 1.1, faults typed', async () => {
    if (!axis) throw new Error(`CI=true but ${missing.axis.join(', ')} not found: .ci/run must install ${install.axis}`);
    const result = await axis;
    expectSuccess(result);
    expect(result.stdout.match(/^ok {3}WSDL2Java \S+\?wsdl$/gm)).toHaveLength(4);
    expect(result.stdout.match(/^ok {3}WSDL2Java \S+\?wsdl=faults$/gm)).toHaveLength(4);
    // the addresses, 8 operations, 2 faults
    expect(result.stdout).toMatch(/^11 passed, 0 failed$/m);
    expect(result.stdout).not.toMatch(/^FAIL/m);
  }, 240_000);

  runIf('mono')('.NET proxies (Mono wsdl) from the served and the legacy WSDL call every operation over SOAP 1.1 and 1.2, faults included', async () => {
    if (!mono) throw new Error(`CI=true but ${missing.mono.join(', ')} not found: .ci/run must install ${install.mono}`);
    const result = await mono;
    expectSuccess(result);
    // 4 proxy sets (served/legacy x SOAP 1.1/1.2), each: 4 proxies, 8 operations, 2 faults
    expect(result.stdout).toMatch(/^56 passed, 0 failed$/m);
    expect(result.stdout).not.toMatch(/^FAIL/m);
  }, 240_000);
});
