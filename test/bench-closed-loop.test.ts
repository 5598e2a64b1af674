// The overload bench's load generator (bench/lib/closed-loop.ts) sorts every response into a
// right answer, a refusal (503 ServiceUnavailable with Retry-After), a connection error, or
// anything else; `npm run bench -- --overload` checks its targets on those counts.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { closedLoop, type CheckedRequest } from '../bench/lib/closed-loop';

const answer = Buffer.from(`<r>${'<Item>x</Item>'.repeat(2000)}</r>`);
const refusal = '<soap:Fault><Code>ServiceUnavailable</Code></soap:Fault>';
let server: http.Server;
let origin: string;
/** /late: the first request that comes 150 ms or more after the first one is answered 400 ms late. */
const LATE = { after: 150, by: 400 };
let firstLate: number | undefined;
let lateGiven = false;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    if (req.url === '/ok') res.end(answer);
    else if (req.url === '/wrong') res.end(answer.subarray(1));
    else if (req.url === '/shed') res.writeHead(503, { 'Retry-After': '1' }).end(refusal);
    else if (req.url === '/shed-without-retry-after') res.writeHead(503).end(refusal);
    else if (req.url === '/never') return; // no answer
    else if (req.url === '/late') {
      firstLate ??= performance.now();
      if (lateGiven || performance.now() - firstLate < LATE.after) res.end(answer);
      else {
        lateGiven = true;
        // A timer may fire up to a millisecond early (libuv's loop clock counts whole milliseconds).
        setTimeout(() => res.end(answer), LATE.by + 1);
      }
    }
    else req.socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => {
  server.close(resolve);
  server.closeAllConnections();
}));

const to = (path: string): CheckedRequest => ({ request: { method: 'GET', path, headers: {} }, expected: answer });

test('right answers and refusals are counted apart; nothing else', async () => {
  const r = await closedLoop(origin, [to('/ok'), to('/shed')], 2, 0.3);
  expect(r.answered.count).toBeGreaterThan(0);
  expect(r.refused.count).toBeGreaterThan(0);
  expect(r.other).toBe(0);
  expect(r.connectionErrors).toBe(0);
});

test.each(['/wrong', '/shed-without-retry-after'])('%s counts as other, not as a connection error', async (path) => {
  const r = await closedLoop(origin, [to(path)], 2, 0.3);
  expect(r.answered.count + r.refused.count).toBe(0);
  expect(r.other).toBeGreaterThan(0);
  expect(r.connectionErrors).toBe(0);
});

test('a connection closed without an answer is a connection error', async () => {
  const r = await closedLoop(origin, [to('/ok'), to('/reset')], 2, 0.3);
  expect(r.answered.count).toBeGreaterThan(0);
  expect(r.connectionErrors).toBeGreaterThan(0);
  expect(r.other).toBe(r.connectionErrors);
});

test('in two threads the counts add up: statuses, wrong bodies, latencies and the bytes read', async () => {
  const r = await closedLoop(origin, [to('/ok'), to('/shed')], 4, 0.3, { threads: 2 });
  expect(r.answered.count).toBeGreaterThan(0);
  expect(r.refused.count).toBeGreaterThan(0);
  expect(r.statuses).toEqual({ 200: r.answered.count, 503: r.refused.count });
  expect(r.responded.count).toBe(r.answered.count + r.refused.count);
  // A refusal's body is not the answer; the answers are all right.
  expect({ wrongBodies: r.wrongBodies, wrong2xx: r.wrong2xx }).toEqual({ wrongBodies: r.refused.count, wrong2xx: 0 });
  // Headers too: more than the bodies.
  expect(r.bytesRead).toBeGreaterThan(r.answered.count * answer.length + r.refused.count * refusal.length);
});

test('the slowest wait is reported with when it began', async () => {
  const r = await closedLoop(origin, [to('/late')], 2, 0.8);
  expect(r.slowest.ms).toBeGreaterThanOrEqual(LATE.by);
  expect(r.slowest.ms).toBe(r.answered.max);
  // Began about LATE.after ms in (the server counts from its first /late, a loaded machine may
  // deliver late): not at the start, as the first requests did.
  expect(r.slowest.startedAfterMs).toBeGreaterThanOrEqual(LATE.after / 2);
  expect(r.slowest.startedAfterMs).toBeLessThan(800);
});

test('with a time-out, a request left unanswered that long is a connection error', async () => {
  const r = await closedLoop(origin, [to('/never')], 2, 0.1, { timeoutMs: 300 });
  expect(r.seconds).toBeGreaterThanOrEqual(0.3);
  expect(r.connectionErrors).toBe(2);
  expect(r.otherSample).toMatch(/timeout/i);
});
