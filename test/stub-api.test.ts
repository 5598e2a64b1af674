// A partner who regenerates a client from `<path>?wsdl` gets the legacy API: for each namespace
// form, stubs generated from the served WSDL and from the WSDL ASMX published
// (test/fixtures/legacy-wsdl) with JAX-WS wsimport (Java), Mono's wsdl (C#) and gSOAP's wsdl2h
// (C++) have the same public declarations: classes, fields, method signatures, throws clauses.
// `<path>?wsdl=faults` still gives the typed ServiceError fault (Axis 1.4: interop-axis-mono).
// Needs libjaxws-java with a JDK, mono-devel and gsoap, which .ci/run installs; elsewhere each
// toolkit's tests are skipped with a message, and under CI=true a missing one fails.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { legacyWsdl } from '../scripts/legacy-wsdl';
import { ENDPOINTS } from '../src/wsdl/endpoints';
import { startWithoutDatabase, type PagesService } from './support/app-without-db';
import { NAMESPACE_FORMS } from './support/namespace-forms';
import { TOOLKITS, csharpDeclarations, differingLines, gsoapDeclarations, javaDeclarations, type StubJob } from './support/stub-api';

const inCi = process.env.CI === 'true';
type Toolkit = keyof typeof TOOLKITS;
const missing = Object.fromEntries(Object.entries(TOOLKITS).map(([k, f]) => [k, f()])) as Record<Toolkit, string[]>;
for (const [tool, what] of Object.entries(missing)) {
  if (what.length > 0 && !inCi) console.warn(`stub-api: ${tool} tests skipped, not found: ${what.join(', ')}`);
}
const testIf = (tool: Toolkit): typeof test => (missing[tool].length === 0 || inCi ? test : test.skip);

const FORMS = NAMESPACE_FORMS.map((ns, i) => ({ ns, id: `n${i}` }));
const job = (kind: string, id: string, name: string): string => `${kind}.${id}.${name}`;

let work: string;
const services: PagesService[] = [];
const jobs: StubJob[] = [];
const declarations: Partial<Record<Toolkit, Map<string, string[]>>> = {};
const failures: Partial<Record<Toolkit, Error>> = {};

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-stub-api-'));
  const write = (name: string, text: string): void => {
    const file = path.join(work, `${name}.wsdl`);
    fs.writeFileSync(file, text);
    jobs.push({ name, wsdl: file });
  };
  for (const { ns, id } of FORMS) {
    const svc = await startWithoutDatabase({ SVAPI_NAMESPACE: ns });
    services.push(svc);
    for (const e of ENDPOINTS) {
      // The same base URL in both, so the addresses (gSOAP's port lines) agree.
      write(job('served', id, e.name), await (await fetch(`${svc.url}${e.path}?wsdl`)).text());
      write(job('legacy', id, e.name), legacyWsdl(e.name as Parameters<typeof legacyWsdl>[0], ns, svc.url));
      if (id === 'n0') write(job('faults', id, e.name), await (await fetch(`${svc.url}${e.path}?wsdl=faults`)).text());
    }
  }
  // The three toolkits at once: each is mostly one busy process.
  const runners: Record<Toolkit, typeof javaDeclarations> = { wsimport: javaDeclarations, mono: csharpDeclarations, gsoap: gsoapDeclarations };
  await Promise.all((Object.keys(runners) as Toolkit[]).map(async (tool) => {
    if (missing[tool].length > 0) return;
    try {
      declarations[tool] = await runners[tool](jobs, path.join(work, tool));
    } catch (e) {
      failures[tool] = e as Error;
    }
  }));
}, 900_000);

afterAll(async () => {
  for (const s of services) await s.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function declarationsOf(tool: Toolkit): Map<string, string[]> {
  if (missing[tool].length > 0) throw new Error(`CI=true but not found: ${missing[tool].join(', ')}: .ci/run must install them`);
  if (failures[tool]) throw failures[tool];
  return declarations[tool]!;
}

const CASES = FORMS.flatMap(({ ns, id }) => ENDPOINTS.map((e) => [`${e.path}?wsdl, namespace ${ns}`, id, e.name] as const));

describe.each([
  ['wsimport', 'JAX-WS wsimport (Java)'],
  ['mono', 'Mono wsdl (C#)'],
  ['gsoap', 'gSOAP wsdl2h (C++)'],
] as const)('%s: %s', (tool, _title) => {
  testIf(tool).each(CASES)('%s: the stubs declare what the legacy WSDL\'s do', (_label, id, name) => {
    const all = declarationsOf(tool);
    const legacy = all.get(job('legacy', id, name));
    const served = all.get(job('served', id, name));
    expect(legacy?.length).toBeGreaterThan(10);
    expect(differingLines(legacy!, served!)).toEqual([]);
  });
});

describe('what the comparison sees', () => {
  testIf('wsimport')('wsimport: the legacy members as plain types, no checked exception; ?wsdl=faults adds ServiceErrorFault to every SOAP method', () => {
    const all = declarationsOf('wsimport');
    const legacy = all.get(job('legacy', 'n0', 'hunting'))!;
    expect(legacy).toEqual(expect.arrayContaining([
      'Monster: public Description getDescription();',
      'Landarea: public Planet getPlanet();',
      'Planet: public java.lang.String getDescription();',
      'HuntingSoap: public abstract Monster getMonster(int, java.lang.String, int);',
    ]));
    expect(legacy.filter((l) => / throws /.test(l))).toEqual([]);
    // The typed-fault form differs by the fault, and the comparison sees it.
    const faults = all.get(job('faults', 'n0', 'hunting'))!;
    const diff = differingLines(legacy, faults);
    expect(diff).toEqual(expect.arrayContaining([
      '+ HuntingSoap: public abstract Monster getMonster(int, java.lang.String, int) throws ServiceErrorFault;',
      '- HuntingSoap: public abstract Monster getMonster(int, java.lang.String, int);',
      '+ ServiceErrorFault: public ServiceError getFaultInfo();',
    ]));
    for (const e of ENDPOINTS) {
      const methods = all.get(job('faults', 'n0', e.name))!.filter((l) => /^\w+Soap: public abstract /.test(l));
      expect(methods.length).toBeGreaterThan(0);
      for (const m of methods) expect(m).toMatch(/ throws ServiceErrorFault;$/);
    }
  });

  testIf('mono')('Mono wsdl: the proxy\'s methods and the records\' properties are among the declarations compared', () => {
    const legacy = declarationsOf('mono').get(job('legacy', 'n0', 'hunting'))!;
    expect(legacy).toEqual(expect.arrayContaining([
      'Hunting: public Monster GetMonster(System.Int32 DevID, System.String DevKey, System.Int32 MonsterID)',
      'Landarea: property Planet Planet { public get; public set }',
    ]));
  });

  testIf('gsoap')('gSOAP: ?wsdl declares no fault detail; ?wsdl=faults declares ServiceError as each SOAP 1.1 operation\'s fault', () => {
    const all = declarationsOf('gsoap');
    const legacy = all.get(job('legacy', 'n0', 'hunting'))!;
    const faults = all.get(job('faults', 'n0', 'hunting'))!;
    expect(legacy.filter((l) => /ServiceError|method-fault/.test(l))).toEqual([]);
    const faultLines = faults.filter((l) => /method-fault/.test(l));
    expect(faultLines).toEqual(['GetLandareaGlobals', 'GetMonster', 'GetMonsterGlobals', 'GetMonsters', 'GetPlayerGlobals']
      .map((op) => `//gsoap tempuri service method-fault: ${op} tempuri__ServiceError_`));
    expect(faults).toEqual(expect.arrayContaining([
      'class tempuri__ServiceError { public: std::string Code 1; std::string Message 1; std::string* Parameter 0; struct soap *soap ; };',
      expect.stringMatching(/^mutable struct SOAP_ENV__Detail \{ tempuri__ServiceError\* tempuri__ServiceError_ ;/),
    ]));
  });
});
