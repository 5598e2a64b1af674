import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createKey } from '../src/auth/keys';
import { exitCodeOf, runCompare, type CompareOptions, type CompareResult } from '../src/compare/run';
import { textReport } from '../src/compare/report';
import { runCli } from './support/cli';
import { freshDatabase, type TestDatabase } from './support/db';
import { LEGACY_NS, startLegacyAsmx, type LegacyAsmx } from './support/legacy-asmx';
import { serveOver, type ServedApp } from './support/serve';

// `svapi compare` against a second svapi on the same data, against one on changed data and
// another namespace, and against an ASMX-like legacy service; its rate cap, time-outs and bounds.

jest.setTimeout(180_000);

const SEARCH_OPS = ['GetWeapons', 'FindItems', 'GetMonsters'];
const CHANGED_MONSTER = 1;
const MISSING_MONSTER = 29;

let db: TestDatabase;
let changedDb: TestDatabase;
let key: { devId: number; devKey: string };
let changedKey: { devId: number; devKey: string };
let svapi: ServedApp;
let twin: ServedApp;
let tempuri: ServedApp;
let changed: ServedApp;
const stop: (() => Promise<void>)[] = [];

beforeAll(async () => {
  [db, changedDb] = await Promise.all([freshDatabase({ seed: true }), freshDatabase({ seed: true })]);
  key = await createKey(db.knex, 'compare');
  changedKey = await createKey(changedDb.knex, 'compare');
  await changedDb.knex('monsters').where({ monster_id: CHANGED_MONSTER }).update({ description: 'changed by the test' });
  await changedDb.knex('hunting_globals').where({ monster_id: MISSING_MONSTER }).delete();
  await changedDb.knex('monsters').where({ monster_id: MISSING_MONSTER }).delete();
  svapi = await serveOver(db);
  twin = await serveOver(db);
  tempuri = await serveOver(db, { SVAPI_NAMESPACE: LEGACY_NS });
  changed = await serveOver(changedDb);
  stop.push(() => svapi.close(), () => twin.close(), () => tempuri.close(), () => changed.close());
});

afterAll(async () => {
  for (const s of stop.reverse()) await s();
  await Promise.all([db?.destroy(), changedDb?.destroy()]);
});

const cred = (k: { devId: number; devKey: string }) => ({ devId: String(k.devId), devKey: k.devKey });

function compare(legacyUrl: string, svapiUrl: string, opts: Partial<CompareOptions> = {}): Promise<CompareResult> {
  return runCompare({
    legacyUrl, svapiUrl, legacy: cred(key), svapi: cred(key), samples: 3, rate: 1000, timeoutMs: 20_000, maxTimeMs: 170_000, ...opts,
  });
}

const kinds = (r: CompareResult) => new Set(r.calls.flatMap((c) => c.kinds));

test('a second svapi on the same data: every contract field and every answer equal, exit 0', async () => {
  const r = await compare(twin.url, svapi.url);
  expect(r.contract).toEqual([]);
  expect(r.calls.filter((c) => c.status !== 'equal')).toEqual([]);
  // Every operation on all four bindings, with the edge cases, and refusals compared by kind.
  for (const op of Object.keys(r.offered)) {
    for (const b of ['soap11', 'soap12', 'httpGet', 'httpPost']) expect(r.calls.filter((c) => c.operation === op && c.binding === b).length).toBeGreaterThan(0);
  }
  for (const op of SEARCH_OPS) {
    expect(r.calls.filter((c) => c.operation === op).map((c) => c.params.SearchWord)).toEqual(expect.arrayContaining(['', '%', '_', 'ö']));
  }
  expect(r.calls.some((c) => c.operation === 'GetMonster' && c.params.MonsterID === '2147483647' && c.bothRefused)).toBe(true);
  expect(r.calls.some((c) => c.operation === 'GetPlayerGlobals' && c.params.playerID !== '2147483647')).toBe(true);
  expect(r.calls.some((c) => c.operation === 'GetLandareaGlobals' && c.params.LandareaID !== '2147483647')).toBe(true);
  expect(exitCodeOf(r)).toBe(0);
  expect(textReport(r)).toContain('Result: nothing a client would notice differs (exit 0)');
});

test('a wrong legacy credential: every call refused there, and the report says to check it', async () => {
  const r = await compare(twin.url, svapi.url, { legacy: { devId: String(key.devId), devKey: 'not-the-key' } });
  expect(r.calls.length).toBeGreaterThan(0);
  expect(r.calls.filter((c) => !c.bothRefused).every((c) => c.kinds.includes('svapi answers, legacy refuses'))).toBe(true);
  expect(exitCodeOf(r)).toBe(1);
  expect(textReport(r)).toContain('Every call to legacy was refused: check its DevID and DevKey (--legacy-devid, --legacy-devkey-file).');
});

test('changed data and another namespace: each difference found and named, the namespace advice given', async () => {
  const r = await compare(tempuri.url, changed.url, { svapi: cred(changedKey) });
  expect(r.contract).toEqual(expect.arrayContaining([
    expect.objectContaining({ endpoint: '/API/hunting.asmx', kind: 'target namespace', legacy: LEGACY_NS, svapi: 'SVAPI', severity: 'differs' }),
    expect.objectContaining({ endpoint: '/API/hunting.asmx', kind: 'soapAction (follows the namespace)', legacy: `${LEGACY_NS}<Operation>`, svapi: 'SVAPI/<Operation>' }),
  ]));
  expect(r.namespaceAdvice).toBe(LEGACY_NS);
  const found = kinds(r);
  expect(found).toContain('value differs at GetMonsters result/Monster/Description/Description');
  expect(found).toContain('missing on svapi at GetMonsters result/Monster');
  expect(found).toContain('legacy answers, svapi refuses');
  const gone = r.calls.find((c) => c.operation === 'GetMonster' && c.params.MonsterID === String(MISSING_MONSTER) && c.binding === 'soap11');
  expect(gone).toMatchObject({ status: 'differs', first: { legacy: 'answer <Envelope>', svapi: expect.stringContaining('soap:Client') } });
  const all = r.calls.find((c) => c.operation === 'GetMonsters' && c.params.SearchWord === '' && c.binding === 'httpGet');
  expect(all).toMatchObject({ status: 'differs', first: { path: expect.stringMatching(/^\/ArrayOfMonster\/Monster\[\d+\]\/Description\/Description$/), svapi: '"changed by the test"' } });
  // Data equal elsewhere: auction categories do not differ in spite of the namespaces.
  expect(r.calls.filter((c) => c.operation === 'GetAuctionCategories').map((c) => c.status)).toEqual(['equal', 'equal', 'equal', 'equal']);
  expect(exitCodeOf(r)).toBe(1);
  const text = textReport(r);
  expect(text).toContain(`SVAPI_NAMESPACE=${LEGACY_NS}`);
  expect(text).toMatch(/^ +\d+ +missing on svapi at GetMonsters result\/Monster$/m);
  expect(text).toMatch(/GetMonsters +differs \d+\/\d+/);
});

describe('an ASMX legacy service (SOAP only, ASMX formatting, no fault detail)', () => {
  let legacy: LegacyAsmx;
  beforeAll(async () => {
    legacy = await startLegacyAsmx({ upstream: tempuri.url });
    stop.push(() => legacy.close());
  });

  test('equal where the data are equal; HTTP GET and POST reported not offered, not failed', async () => {
    const r = await compare(legacy.url, tempuri.url);
    for (const op of Object.keys(r.offered)) {
      expect(r.offered[op].httpGet).toEqual({ legacy: false, svapi: true });
      expect(r.offered[op].soap12).toEqual({ legacy: true, svapi: true });
    }
    expect(r.contract).toEqual(expect.arrayContaining([
      expect.objectContaining({ where: 'HTTP GET', kind: 'binding not offered by legacy', severity: 'note' }),
      expect.objectContaining({ where: 'HTTP POST', kind: 'binding not offered by legacy', severity: 'note' }),
    ]));
    expect(r.calls.length).toBeGreaterThan(40);
    expect(r.calls.filter((c) => c.status !== 'equal')).toEqual([]);
    expect(new Set(r.calls.map((c) => c.binding))).toEqual(new Set(['soap11', 'soap12']));
    expect(legacy.requests.filter((q) => q.method !== 'GET' ? false : !q.url.includes('?wsdl'))).toEqual([]);
    // Faults without detail against faults with it: both refuse, the difference shown as expected.
    const refused = r.calls.filter((c) => c.bothRefused);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((c) => c.bothRefused!.detailDiffers && c.status === 'equal')).toBe(true);
    expect(textReport(r)).toMatch(/\(not a difference\) both refuse; the fault detail differs \(expected\)/);
    // The WSDLs: whatever minOccurs/nillable svapi publishes for its three nil-able values is
    // reported; nothing else a generated client depends on differs.
    const differs = r.contract.filter((f) => f.severity === 'differs');
    for (const f of differs) {
      expect(f.kind).toMatch(/^(minOccurs|nillable)$/);
      expect(f.where).toMatch(/^type (Weapon|Item|Monster|Landarea|Planet), field (Description|Planet)$/);
    }
    expect(exitCodeOf(r)).toBe(differs.length ? 1 : 0);
  });

  test('rate cap and bounded total: no more requests a second than asked, and the run stops at its time limit', async () => {
    const before = legacy.requests.length;
    const r = await compare(legacy.url, tempuri.url, { rate: 8, maxTimeMs: 3_000 });
    const at = legacy.requests.slice(before).map((q) => q.at);
    expect(at.length).toBeGreaterThan(8);
    // Starts are spaced 1/8 s apart: any 9 consecutive requests span about a second (uncapped,
    // they come within milliseconds). The stamps are taken where the legacy server handles them,
    // on this process's event loop: one handled late on a loaded machine shortens a span, so
    // a quarter of a second is left for that.
    for (let i = 8; i < at.length; i++) expect(at[i] - at[i - 8]).toBeGreaterThanOrEqual(750);
    expect(at.length).toBeLessThanOrEqual(8 * 3 + 1);
    expect(r.incomplete).toMatch(/time limit \(3 s\)/);
    expect(exitCodeOf(r)).toBe(1);
    expect(textReport(r)).toContain('INCOMPLETE');
  });

  test('a call without an answer in time is an error on its row; the other operations still compare', async () => {
    const slow = await startLegacyAsmx({ upstream: tempuri.url, stall: ['GetAuctionCategories'] });
    try {
      // Long enough that no call but the stalled ones runs out on a loaded machine.
      const r = await compare(slow.url, tempuri.url, { timeoutMs: 12_000 });
      const auction = r.calls.filter((c) => c.operation === 'GetAuctionCategories');
      expect(auction.map((c) => c.status)).toEqual(['error', 'error']);
      expect(auction[0].first!.legacy).toBe('no answer: no answer within 12 s');
      expect(r.calls.filter((c) => c.operation !== 'GetAuctionCategories' && c.status !== 'equal')).toEqual([]);
      expect(r.unreachable).toBeUndefined();
      expect(exitCodeOf(r)).toBe(1);
      expect(textReport(r)).toMatch(/GetAuctionCategories +error 1\/1 +error 1\/1 +not offered +not offered/);
    } finally {
      await slow.close();
    }
  });
});

describe('the command', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-compare-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('--json, keys from files: the report as JSON, exit 1 on differences, no key printed', async () => {
    fs.writeFileSync(path.join(dir, 'legacy-key'), `${key.devKey}\n`, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'svapi-key'), `${changedKey.devKey}\n`, { mode: 0o600 });
    const out = await runCli(['compare', tempuri.url, '--svapi', changed.url, '--legacy-devid', String(key.devId),
      '--legacy-devkey-file', path.join(dir, 'legacy-key'), '--devid', String(changedKey.devId), '--devkey-file', path.join(dir, 'svapi-key'),
      '--samples', '2', '--rate', '200', '--json']);
    expect(out.code).toBe(1);
    const report = JSON.parse(out.stdout);
    expect(report).toMatchObject({ exitCode: 1, namespaceAdvice: { SVAPI_NAMESPACE: LEGACY_NS }, unreachable: null });
    expect(report.kinds).toEqual(expect.arrayContaining([{ kind: 'missing on svapi at GetMonsters result/Monster', count: expect.any(Number), difference: true }]));
    expect(report.totals.differs).toBeGreaterThan(0);
    for (const k of [key.devKey, changedKey.devKey]) {
      expect(out.stdout).not.toContain(k);
      expect(out.stderr).not.toContain(k);
    }
  });

  test('a side that does not answer: exit 2, saying which', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const out = await runCli(['compare', `http://127.0.0.1:${port}`, '--svapi', svapi.url, '--legacy-devid', '1', '--legacy-devkey', 'not-a-real-key',
      '--devid', String(key.devId), '--devkey', key.devKey, '--timeout', '5']);
    expect(out.code).toBe(2);
    expect(out.stdout).toMatch(new RegExp(`UNREACHABLE: legacy \\(http://127\\.0\\.0\\.1:${port}\\): .*ECONNREFUSED`));
    expect(out.stdout).not.toContain(key.devKey);
  });

  test('a missing credential is refused before anything is sent (exit 2)', async () => {
    const out = await runCli(['compare', svapi.url, '--svapi', svapi.url, '--legacy-devid', '1', '--devid', '1', '--devkey', 'x']);
    expect(out).toMatchObject({ code: 2, stdout: '' });
    expect(out.stderr).toContain('the legacy DevKey is missing (--legacy-devkey-file or --legacy-devkey)');
    const badRate = await runCli(['compare', svapi.url, '--rate', '0', '--legacy-devid', '1', '--legacy-devkey', 'x', '--devid', '1', '--devkey', 'x']);
    expect(badRate).toMatchObject({ code: 2, stdout: '' });
    expect(badRate.stderr).toContain("option '--rate <n>' argument '0' is invalid");
  });
});
