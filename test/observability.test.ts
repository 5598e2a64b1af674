// One structured log line per request (fields, never the DevKey) and the Prometheus metrics.

import { startService, type TestService } from './support/service';
import { serveOver, type ServedApp } from './support/serve';
import { BINDINGS, call, HUNTING, send, WEAPONS } from './support/bindings';
import { until } from './support/wait';

let svc: TestService;
let logged: ServedApp;
beforeAll(async () => {
  svc = await startService();
  logged = await serveOver(svc.db, {}, { captureLog: true });
});
afterAll(async () => {
  await logged.close();
  await svc.close();
});

const creds = () => ({ DevID: String(svc.key.devId), DevKey: svc.key.devKey });

/** The access-log line of the response with this request id (written once the response finished). */
async function accessLine(id: string): Promise<Record<string, unknown>> {
  const lines = () => logged.log.filter((l) => l.requestId === id && l.msg === 'request');
  await until(`an access log line for ${id}`, () => lines().length > 0, 1000);
  expect(lines()).toHaveLength(1);
  return lines()[0];
}

test('one access-log line per request with its fields, for every binding', async () => {
  const expected = { soap11: 'soap11', soap12: 'soap12', get: 'http-get', post: 'http-post' } as const;
  for (const b of BINDINGS) {
    const answer = await call(logged.url, b, HUNTING, 'GetMonster', { ...creds(), MonsterID: '1' });
    expect(answer.status).toBe(200);
    const line = await accessLine(answer.headers.get('x-request-id')!);
    expect(line).toMatchObject({
      level: 30,
      endpoint: b === 'soap11' || b === 'soap12' ? HUNTING : `${HUNTING}/GetMonster`,
      operation: 'GetMonster',
      binding: expected[b],
      outcome: 'OK',
      status: 200,
      devId: svc.key.devId,
      pid: process.pid,
    });
    expect(typeof line.durationMs).toBe('number');
    expect(line.durationMs as number).toBeGreaterThanOrEqual(0);
  }
});

test('a failed credential is logged with its code; pages and unknown paths have a binding too', async () => {
  for (const b of BINDINGS) {
    const answer = await call(logged.url, b, WEAPONS, 'GetWeapons', { DevID: String(svc.key.devId), DevKey: 'wrong-key-0123456789' });
    const line = await accessLine(answer.headers.get('x-request-id')!);
    expect(line).toMatchObject({ operation: 'GetWeapons', outcome: 'AuthenticationFailed', status: answer.status });
    expect(line.devId).toBeUndefined();
  }
  const page = await send(`${logged.url}${WEAPONS}?wsdl`);
  expect(await accessLine(page.headers.get('x-request-id')!)).toMatchObject({ binding: 'docs', outcome: 'OK', status: 200 });
  const missing = await send(`${logged.url}/nowhere`);
  expect(await accessLine(missing.headers.get('x-request-id')!)).toMatchObject({ binding: 'other', outcome: 'NotFound', status: 404 });
});

test('no log line ever holds a DevKey', async () => {
  for (const b of BINDINGS) {
    const answer = await call(logged.url, b, WEAPONS, 'GetWeapons', { ...creds(), SearchWord: 'a' });
    await accessLine(answer.headers.get('x-request-id')!);
  }
  expect(logged.log.length).toBeGreaterThan(0);
  for (const line of logged.log) {
    const text = JSON.stringify(line);
    expect(text).not.toContain(svc.key.devKey);
    expect(text).not.toContain('wrong-key-0123456789');
    expect(text.toLowerCase()).not.toContain('devkey');
  }
});

/** The value of one series in a Prometheus text exposition (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

test('/metrics: requests, latency, pool and process series move with calls', async () => {
  const counter = 'svapi_requests_total{operation="GetMonster",binding="soap11",outcome="OK"}';
  const latency = 'svapi_request_duration_seconds_count{operation="GetMonster",binding="soap11"}';
  const authFailed = 'svapi_requests_total{operation="GetMonster",binding="http-get",outcome="AuthenticationFailed"}';
  const before = await send(`${svc.url}/metrics`);
  expect(before.status).toBe(200);
  expect(before.headers.get('content-type')).toMatch(/^text\/plain/);
  const n = 5;
  for (let i = 0; i < n; i++) expect((await call(svc.url, 'soap11', HUNTING, 'GetMonster', { ...creds(), MonsterID: '1' })).status).toBe(200);
  await call(svc.url, 'get', HUNTING, 'GetMonster', { DevID: '1', DevKey: 'nope', MonsterID: '1' });
  const after = (await send(`${svc.url}/metrics`)).body;
  expect(sample(after, counter) - sample(before.body, counter)).toBe(n);
  expect(sample(after, latency) - sample(before.body, latency)).toBe(n);
  expect(sample(after, authFailed) - sample(before.body, authFailed)).toBe(1);
  for (const s of ['svapi_db_pool_used', 'svapi_db_pool_free', 'svapi_db_pool_pending']) {
    expect(Number.isFinite(sample(after, s))).toBe(true);
    expect(after).toMatch(new RegExp(`^${s} \\d+$`, 'm'));
  }
  expect(sample(after, 'svapi_db_pool_free') + sample(after, 'svapi_db_pool_used')).toBeGreaterThan(0);
  expect(after).toMatch(/^process_cpu_user_seconds_total /m);
  expect(after).toMatch(/^nodejs_heap_size_used_bytes /m);
  expect(after).not.toContain(svc.key.devKey);
});

test('/favicon.ico is 204 without an access-log line or a metric; other unknown paths still are both', async () => {
  const notFound = 'svapi_requests_total{operation="none",binding="other",outcome="NotFound"}';
  const before = (await send(`${logged.url}/metrics`)).body;
  for (const target of ['/favicon.ico', '/favicon.ico?v=2']) {
    const icon = await send(`${logged.url}${target}`);
    expect([target, icon.status, icon.body]).toEqual([target, 204, '']);
    expect(icon.headers.get('cache-control')).toMatch(/max-age=\d+/);
  }
  expect((await send(`${logged.url}/favicon.ico`, { method: 'HEAD' })).status).toBe(204);
  // A request after them is logged: once its line is there, theirs would be too.
  const missing = await send(`${logged.url}/favicon.icon`);
  expect(missing.status).toBe(404);
  await accessLine(missing.headers.get('x-request-id')!);
  expect(logged.log.filter((l) => String(l.endpoint).startsWith('/favicon.ico') && l.endpoint !== '/favicon.icon')).toEqual([]);
  const after = (await send(`${logged.url}/metrics`)).body;
  expect(sample(after, notFound) - sample(before, notFound)).toBe(1);
});
