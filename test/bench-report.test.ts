// The benchmark's headline ratios: the median of rounds in which ours and its reference ran back to back.

import zlib from 'node:zlib';
import { compressedSizes } from '../bench/lib/encoding';
import type { Measurement } from '../bench/lib/measure';
import { ratioLines, ratios, sizesTable, summaryTable, toRound, verdict, type SummaryItem } from '../bench/lib/report';
import { sampleOf } from '../bench/lib/uncached';

const at = (rps: number, cpuUs = 100) => ({ rps, serverCpuUsPerRequest: cpuUs }) as Measurement;

test('each round pairs ours with its reference; the median and the range of the rounds are reported', () => {
  const rounds = [
    toRound(at(6000, 150), at(5000, 200), at(10000, 80), at(20000, 40)),
    toRound(at(3000), at(4000), at(7000), at(15000)),
    toRound(at(6600), at(6000), at(14000), at(25000)),
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
  const round = toRound(at(6000, 150), at(5000, 200), at(10000, 80), at(20000, 40));
  expect(round.soap11VsCeiling).toBe(0.3);
  expect(round.cpu.soap11VsCeiling).toBe(0.267); // 40 / 150
  const r = ratios([], [round]);
  expect(r.soap11VsCeiling).toEqual({ median: 0.3, min: 0.3, max: 0.3 });
  expect(ratioLines(r)).toContain('GetMonster / SOAP 1.1 rps / raw http ceiling rps: 0.300 (median of 1 rounds; 0.300 to 0.300)');
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
