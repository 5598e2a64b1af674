// The benchmark's load generator checks every response body byte for byte (bench/lib/measure.ts
// keeps autocannon's body chunks raw instead of decoding them). A wrong body must be flagged.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { inflatesTo } from '../bench/lib/encoding';
import { measure, requestKey, samplesVerifier, sentKey, type Sample, type Target } from '../bench/lib/measure';

// Non-ASCII, and large enough to arrive in several chunks.
const body = `<r>${'<AreaName>Camp Ñandú</AreaName>'.repeat(4000)}</r>`;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    res.setHeader('Content-Type', 'text/xml; charset=utf-8');
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const run = (expected: string) => {
  const target: Target = { origin, request: { method: 'GET', path: '/', headers: {} }, expected };
  return measure(target, process.pid, { connections: 2, warmupSeconds: 0, durationSeconds: 1 });
};

test('the right body, in many chunks, passes', async () => {
  const m = await run(body);
  expect(m.requests).toBeGreaterThan(1); // several responses, each compared (a count in one second: no speed is asserted)
  expect(m.mismatches).toBe(0);
  expect(m.flagged).toBe(false);
  expect(m.bytesPerResponse).toBe(Buffer.byteLength(body));
});

test.each([
  ['one character changed', body.replace('Ñandú</AreaName></r>', 'Nandú</AreaName></r>')],
  ['one byte short', body.slice(0, -1)],
  ['one byte longer', `${body} `],
])('a body that differs (%s) is flagged on every response', async (_how, expected) => {
  const m = await run(expected);
  expect(m.requests).toBeGreaterThan(1); // several responses, each compared (a count in one second: no speed is asserted)
  expect(m.wrong2xx).toBe(m.requests);
  expect(m.flagged).toBe(true);
});

test.each([
  ['503 ServiceUnavailable to every fifth request', 503],
  ['203, a 2xx but not 200, to every fifth request', 203],
])('a run with %s is flagged, whatever the bodies', async (_how, status) => {
  let n = 0;
  const other = http.createServer((req, res) => {
    req.resume();
    res.statusCode = ++n % 5 === 0 ? status : 200;
    res.end(body);
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  try {
    const target: Target = { origin: `http://127.0.0.1:${(other.address() as AddressInfo).port}`, request: { method: 'GET', path: '/', headers: {} }, expected: body };
    const m = await measure(target, process.pid, { connections: 2, warmupSeconds: 0, durationSeconds: 1 });
    expect(m.otherStatuses[String(status)]).toBeGreaterThan(0);
    expect(Object.keys(m.otherStatuses)).toEqual([String(status)]);
    expect(m.flagged).toBe(true);
  } finally {
    await new Promise((resolve) => other.close(resolve));
  }
});

describe('several samples, each request one of them at random', () => {
  // Each path has its own answer: /1 -> "answer 1 ..." (and a POST body is echoed).
  let multi: http.Server;
  let multiOrigin: string;
  const answer = (path: string, body: string) => `answer ${path} ${body} ${'Ñ'.repeat(3000)}`;
  beforeAll(async () => {
    multi = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => res.end(answer(req.url!, body)));
    });
    await new Promise<void>((resolve) => multi.listen(0, '127.0.0.1', resolve));
    multiOrigin = `http://127.0.0.1:${(multi.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => multi.close(resolve)));

  const samples = (wrong?: string): Sample[] => ['/1', '/2', '/3'].map((p): Sample => ({
    request: p === '/3' ? { method: 'POST', path: p, headers: { 'content-type': 'text/plain' }, body: 'héllo' } : { method: 'GET', path: p, headers: {} as Record<string, string> },
    expected: p === wrong ? answer(p, 'x') : answer(p, p === '/3' ? 'héllo' : ''),
  }));

  test('every response is checked against the answer for its own request', async () => {
    const m = await measure({ origin: multiOrigin, samples: samples() }, process.pid, { connections: 4, warmupSeconds: 0, durationSeconds: 1 });
    expect(m.requests).toBeGreaterThan(10);
    expect(m.mismatches).toBe(0);
    expect(m.flagged).toBe(false);
  });

  test('a wrong answer for one of the samples is flagged on its responses only', async () => {
    const m = await measure({ origin: multiOrigin, samples: samples('/2') }, process.pid, { connections: 4, warmupSeconds: 0, durationSeconds: 1 });
    expect(m.requests).toBeGreaterThan(10);
    // About a third of the requests go to /2 (drawn at random): some flagged, not all.
    expect(m.wrong2xx).toBeGreaterThan(0);
    expect(m.wrong2xx).toBeLessThan(m.requests);
    expect(m.flagged).toBe(true);
  });
});

test('the raw request autocannon sent is matched to its sample by request line and body', () => {
  const sent = Buffer.from('POST /api/x.asmx HTTP/1.1\r\nHost: h\r\nContent-Length: 6\r\n\r\nhéllo');
  expect(sentKey(sent)).toBe(requestKey('POST', '/api/x.asmx', 'héllo'));
  expect(sentKey(Buffer.from('GET /a?b=1 HTTP/1.1\r\nHost: h\r\n\r\n'))).toBe(requestKey('GET', '/a?b=1', undefined));
});

test('a compressed answer whose bytes vary passes when it inflates to the plain one', () => {
  const plain = Buffer.from(body);
  const [fast, small] = [zlib.gzipSync(plain, { level: 1 }), zlib.gzipSync(plain, { level: 9 })];
  expect(fast.equals(small)).toBe(false);
  const check = samplesVerifier([{ request: { method: 'GET', path: '/', headers: {} }, expected: fast, equivalent: inflatesTo(plain, 'gzip') }]);
  expect(check([fast.subarray(0, 100), fast.subarray(100)])).toBe(true);
  expect(check([small])).toBe(true);
  expect(check([zlib.gzipSync(Buffer.from(`${body} `))])).toBe(false);
  expect(check([plain])).toBe(false);
});
