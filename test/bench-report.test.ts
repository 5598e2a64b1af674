// The benchmark's headline ratios: the median of rounds in which ours and its reference ran back to back.

import type { Measurement } from '../bench/lib/measure';
import { ratioLines, ratios, toRound } from '../bench/lib/report';

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
  // CPU per request, the reference's over ours: round 1 has 200/150 and 40/80, the others 100/100.
  expect(rounds[0].cpu).toEqual({ soap11: 1.333, httpGet: 0.5 });
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
