// The benchmark's load generator checks every response body byte for byte (bench/lib/measure.ts
// keeps autocannon's body chunks raw instead of decoding them). A wrong body must be flagged.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { measure, type Target } from '../bench/lib/measure';

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
