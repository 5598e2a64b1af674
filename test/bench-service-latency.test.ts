// The benchmark's "srv p99" column: percentile bounds from two scrapes of the service's histogram.

import { parseBuckets, serviceLatency } from '../bench/lib/service-latency';

const scrape = (counts: Record<string, number>, other = 0) => [
  '# HELP svapi_request_duration_seconds Time ...',
  ...Object.entries(counts).map(([le, n]) => `svapi_request_duration_seconds_bucket{le="${le}",operation="GetMonster",binding="soap11"} ${n}`),
  `svapi_request_duration_seconds_bucket{le="+Inf",operation="GetMonster",binding="http-get"} ${other}`,
  `svapi_request_duration_seconds_bucket{le="+Inf",operation="FindItems",binding="soap11"} ${other}`,
].join('\n');

test('only the case\'s operation and binding count, and only the requests between the scrapes', () => {
  const before = parseBuckets(scrape({ '0.001': 100, '0.005': 100, '0.025': 100, '+Inf': 100 }, 7), 'GetMonster', 'SOAP 1.1');
  // 1000 more: 900 within 1 ms, 95 within 5 ms, 4 within 25 ms, 1 slower.
  const after = parseBuckets(scrape({ '0.001': 1000, '0.005': 1095, '0.025': 1099, '+Inf': 1100 }, 5000), 'GetMonster', 'SOAP 1.1');
  expect(serviceLatency(before, after)).toEqual({ requests: 1000, p50AtMostMs: 1, p99AtMostMs: 5 });
});

test('a p99 past the last bound is null, and no requests give nulls', () => {
  const before = parseBuckets(scrape({ '0.001': 0, '0.025': 0, '+Inf': 0 }), 'GetMonster', 'SOAP 1.1');
  const after = parseBuckets(scrape({ '0.001': 60, '0.025': 60, '+Inf': 100 }), 'GetMonster', 'SOAP 1.1');
  expect(serviceLatency(before, after)).toEqual({ requests: 100, p50AtMostMs: 1, p99AtMostMs: null });
  expect(serviceLatency(after, after)).toEqual({ requests: 0, p50AtMostMs: null, p99AtMostMs: null });
});
