// The benchmark's headline ratios: the median of rounds in which ours and its reference ran back to back.

import zlib from 'node:zlib';
import { compressedSizes } from '../bench/lib/encoding';
import type { Measurement } from '../bench/lib/measure';
import type { PgbenchResult } from '../bench/lib/pgbench';
import { ratioLines, ratios, sizesTable, summaryTable, toRound, verdict, type SummaryItem } from '../bench/lib/report';
import { sampleOf, uncachedRound } from '../bench/lib/uncached';

const at = (rps: number, cpuUs = 100, p99 = 10) => ({
  rps, serverCpuUsPerRequest: cpuUs, latencyMs: { p99 }, flagged: false, otherStatuses: {}, requests: 1000, errors: 0, wrong2xx: 0,
}) as unknown as Measurement;
/** A measurement in which the service refused `refused` requests with 503. */
const refusing = (rps: number, refused: number) => ({ ...at(rps), flagged: true, non2xx: refused, otherStatuses: { 503: refused } }) as unknown as Measurement;

test('each round pairs ours with its reference; the median and the range of the rounds are reported', () => {
  const rounds = [
    toRound(at(6000, 150), at(5000, 200), at(10000, 80), at(20000, 40), at(30000)),
    toRound(at(3000), at(4000), at(7000), at(15000), at(20000)),
    toRound(at(6600), at(6000), at(14000), at(25000), at(30000)),
  ];
  expect(rounds.map((r) => [r.soap11, r.httpGet])).toEqual([[1.2, 0.5], [0.75, 0.467], [1.1, 0.56]]);
  const cases = [{ name: 'GetMonster / HTTP GET', operation: 'GetMonster', binding: 'HTTP GET', records: 1, measurement: at(10000) }];
  const r = ratios(cases, rounds);
  expect(r.soap11VsNodeSoap).toEqual({ median: 1.1, min: 0.75, max: 1.2 });
  expect(r.httpGetVsCeiling).toEqual({ median: 0.5, min: 0.467, max: 0.56 });
  // CPU per request, the reference's over ours: round 1 has 200/150, 40/80 and 40/150, the others 100/100.
  expect(rounds[0].cpu).toEqual({ soap11: 1.333, httpGet: 0.5, soap11VsCeiling: 0.267 });
  expect(r.cpuSoap11VsNodeSoap).toEqual({ median: 1, min: 1, max: 1.333 });
  expect(r.cpuHttpGetVsCeiling).toEqual({ median: 1, min: 0.5, max: 1 });
  expect(r.vsCeiling['GetMonster / HTTP GET']).toBe(0.5); // 10000 / median ceiling 20000
  expect(ratioLines(r)).toContain('GetMonster / SOAP 1.1 rps / bare node-soap rps: 1.100 (median of 3 rounds; 0.750 to 1.200)');
});

test('without references there are no ratios', () => {
  const r = ratios([], []);
  expect([r.soap11VsNodeSoap, r.httpGetVsCeiling]).toEqual([null, null]);
  expect(ratioLines(r)).toContain('bare node-soap rps: n/a');
});

test('SOAP 1.1 GetMonster is also compared with the ceiling, by rps and by CPU per request', () => {
  const round = toRound(at(6000, 150), at(5000, 200), at(10000, 80), at(20000, 40), at(30000));
  expect(round.soap11VsCeiling).toBe(0.3);
  expect(round.cpu.soap11VsCeiling).toBe(0.267); // 40 / 150
  const r = ratios([], [round]);
  expect(r.soap11VsCeiling).toEqual({ median: 0.3, min: 0.3, max: 0.3 });
  expect(ratioLines(r)).toContain('GetMonster / SOAP 1.1 rps / raw http ceiling rps: 0.300 (median of 1 rounds; 0.300 to 0.300)');
});

test("the ceiling in the service's layout: its p99 over the one-process ceiling's, and ours over its", () => {
  const rounds = [
    toRound(at(6000), at(5000), at(10000, 100, 12), at(20000, 100, 4), at(25000, 100, 8)),
    toRound(at(6000), at(5000), at(10000, 100, 9), at(20000, 100, 6), at(25000, 100, 6)),
    toRound(at(6000), at(5000), at(10000, 100, 20), at(20000, 100, 5), at(25000, 100, 25)),
  ];
  expect(rounds.map((r) => [r.p99HttpGetVsCeiling, r.p99LayoutVsCeiling, r.p99HttpGetVsLayout])).toEqual([[3, 2, 1.5], [1.5, 1, 1.5], [4, 5, 0.8]]);
  const r = ratios([], rounds);
  expect(r.p99LayoutVsCeiling).toEqual({ median: 2, min: 1, max: 5 });
  expect(r.p99HttpGetVsLayout).toEqual({ median: 1.5, min: 0.8, max: 1.5 });
  expect(ratioLines(r)).toContain('raw http ceiling as primary + workers, p99 / the one-process ceiling\'s p99: 2.000 (median of 3 rounds; 1.000 to 5.000)');
  // A layout reference that answered but 200 gives no layout ratios; the round's other ratios still count.
  const failed = toRound(at(6000), at(5000), at(10000, 100, 12), at(20000, 100, 4), refusing(25000, 3));
  expect(failed).toMatchObject({ failed: [], layoutFailed: '503 x3', p99LayoutVsCeiling: null, p99HttpGetVsLayout: null, p99HttpGetVsCeiling: 3 });
  const withFailed = ratios([], [...rounds, failed]);
  expect(withFailed.p99LayoutVsCeiling).toEqual({ median: 2, min: 1, max: 5 });
  expect(withFailed.p99HttpGetVsCeiling).toEqual({ median: 3, min: 1.5, max: 4 });
  expect(ratioLines(withFailed)).toContain('round 4: the ceiling as primary + workers failed (503 x3), its ratios not taken');
});

test('a round with an answer but 200 fails: it gives no ratio, and says why', () => {
  const rounds = [
    toRound(at(6000), at(5000), refusing(10000, 1200), at(20000), at(30000)),
    toRound(at(3000), at(4000), at(7000, 100, 30), at(14000, 100, 10), at(20000, 100, 20)),
  ];
  expect(rounds[0].failed).toEqual(['HTTP GET: 503 x1200']);
  expect(rounds[1].failed).toEqual([]);
  const r = ratios([], rounds);
  // Only round 2 counts: 7000 / 14000, 3000 / 4000; p99 30 / 10.
  expect(r.httpGetVsCeiling).toEqual({ median: 0.5, min: 0.5, max: 0.5 });
  expect(r.soap11VsNodeSoap).toEqual({ median: 0.75, min: 0.75, max: 0.75 });
  expect(r.p99HttpGetVsCeiling).toEqual({ median: 3, min: 3, max: 3 });
  expect(r.failedRounds).toBe(1);
  expect(ratioLines(r)).toContain('round 1 FAILED, no ratio taken: HTTP GET: 503 x1200');

  const cases = [
    { name: 'refused', operation: 'GetMonster', binding: 'HTTP GET', records: 1, measurement: refusing(10000, 5) },
    { name: 'answered', operation: 'GetMonster', binding: 'HTTP GET', records: 1, measurement: at(7000) },
  ];
  expect(ratios(cases, rounds).vsCeiling).toEqual({ refused: null, answered: 0.5 });

  const allFailed = ratios([], [rounds[0]]);
  expect(allFailed.httpGetVsCeiling).toBeNull();
  expect(verdict({ label: 'HTTP GET / ceiling', value: allFailed.httpGetVsCeiling, target: 0.6, failedRounds: 1 })).toBe('FAILED');
});

test('an uncached round gives its ratios to pgbench and to the Node floor only when neither failed', () => {
  const pgbench = { tps: 1000, failed: 0 } as PgbenchResult;
  expect(uncachedRound(at(300), pgbench, at(400))).toMatchObject({ ratio: 0.3, vsFloor: 0.75, floorVsPgbench: 0.4, failed: [] });
  const refused = uncachedRound(refusing(300, 50), pgbench, at(400));
  expect(refused).toMatchObject({ ratio: null, vsFloor: null, floorVsPgbench: 0.4, failed: ['service: 503 x50'] });
  expect(uncachedRound(at(300), { tps: 1000, failed: 3 } as PgbenchResult)).toMatchObject({ ratio: null, failed: ['pgbench: 3 failed'] });
  expect(uncachedRound(at(300), pgbench).vsFloor).toBeUndefined();
});

test('a p99 target is met at or below its bound', () => {
  const p99 = (median: number): SummaryItem => ({ label: 'p99', value: { median, min: median, max: median }, atMost: 1.5 });
  expect([p99(1.2), p99(1.5), p99(2.6)].map(verdict)).toEqual(['met', 'met', 'NOT MET']);
  expect(summaryTable([p99(2.6)]).split('\n')[2]).toMatch(/<= 1\.5 +NOT MET/);
});

test('the summary gives each ratio its target and says whether the median meets it', () => {
  const items: SummaryItem[] = [
    { label: 'uncached A: rps / pgbench tps', value: { median: 0.85, min: 0.7, max: 0.9 }, target: 0.8 },
    { label: 'uncached B: rps / pgbench tps', value: { median: 0.22, min: 0.2, max: 0.3 }, target: 0.8, note: 'srv 3.00 ms/req' },
    { label: 'SOAP 1.1 / node-soap', value: { median: 1.5, min: 1.2, max: 2 } },
    { label: 'HTTP GET / ceiling', value: null, target: 0.6 },
  ];
  expect(items.map(verdict)).toEqual(['met', 'NOT MET', 'info', 'not measured']);
  const lines = summaryTable(items).split('\n');
  expect(lines[2]).toMatch(/^uncached A: rps \/ pgbench tps +0\.850 \(0\.700-0\.900\) +>= 0\.8 +met$/);
  expect(lines[3]).toMatch(/0\.220 \(0\.200-0\.300\) +>= 0\.8 +NOT MET +srv 3\.00 ms\/req$/);
  expect(lines[5]).toMatch(/^HTTP GET \/ ceiling +n\/a +>= 0\.6 +not measured$/);
});

test('sizes: plain, gzip and brotli, and what the service sent when asked (or that it answered uncompressed)', () => {
  const xml = Buffer.from(`<r>${'<Global><MonsterName>Atrox</MonsterName></Global>'.repeat(500)}</r>`);
  const sizes = compressedSizes([xml, xml]);
  expect(sizes.plain).toBe(xml.length);
  expect(sizes.gzip).toBe(zlib.gzipSync(xml).length);
  expect(sizes.br).toBeLessThan(sizes.gzip);
  const text = sizesTable([{ name: 'case', sizes, onTheWire: { gzip: 1024, br: null } }]);
  expect(text).toMatch(/1\.0 \(\d+%\) +uncompressed$/);
});

test('the uncached samples are drawn without repeats, the same for the same seed', () => {
  const ids = Array.from({ length: 1000 }, (_, i) => i);
  const a = sampleOf(ids, 500, 1, 'players');
  expect(new Set(a).size).toBe(500);
  expect(sampleOf(ids, 500, 1, 'players')).toEqual(a);
  expect(sampleOf(ids, 500, 2, 'players')).not.toEqual(a);
  expect(sampleOf([3, 1, 2], 500, 1, 'x').sort()).toEqual([1, 2, 3]);
});
