// `svapi serve --workers 2`: the per-DevID limit and the failed-credential throttle count once
// per host (in the cluster primary), and one /metrics scrape counts every worker's requests.

import { createKey } from '../src/auth/keys';
import { spawnServe, type SpawnedServe } from './support/spawn-serve';
import { metricSum, tally } from './support/limits';
import { eventually } from './support/wait';

let svc: SpawnedServe;
beforeAll(async () => {
  svc = await spawnServe(['--workers', '2'], { SVAPI_RATE_LIMIT: '100', SVAPI_AUTH_FAIL_LIMIT: '10', SVAPI_TRUST_PROXY: 'on', SVAPI_KEY_CACHE_MS: '0' });
});
afterAll(() => svc?.stop());

const servedBy = (n: number) => new Set(svc.log.filter((l) => l.msg === 'request').slice(-n).map((l) => l.pid));

test('150 requests of one DevID over two workers: exactly 100 answered and 50 RateLimited; one scrape of /metrics counts all 150', async () => {
  const counts = await tally([svc.url], 150, svc.key, { 'X-Forwarded-For': '198.51.100.1' });
  expect(counts).toEqual({ OK: 100, RateLimited: 50 });
  // Both workers answered: the primary held the count.
  expect(await eventually(async () => servedBy(150).size === 2)).toBe(true);

  const scrape = async () => metricSum(await (await fetch(`${svc.url}/metrics`)).text(), 'svapi_requests_total', { operation: 'GetMonster' });
  // A request is counted as its response finishes, which may be just after the client has read it.
  expect(await eventually(async () => (await scrape()) >= 150)).toBe(true);
  const text = await (await fetch(`${svc.url}/metrics`)).text();
  expect(metricSum(text, 'svapi_requests_total', { operation: 'GetMonster', outcome: 'OK' })).toBe(100);
  expect(metricSum(text, 'svapi_requests_total', { operation: 'GetMonster', outcome: 'RateLimited' })).toBe(50);
  expect(metricSum(text, 'svapi_request_duration_seconds_count', { operation: 'GetMonster' })).toBe(150);
});

test('failed credentials from one address are counted once for the host: the 11th is RateLimited, and then a correct key on either worker', async () => {
  const from = { 'X-Forwarded-For': '198.51.100.2' };
  const wrong = { devId: svc.key.devId, devKey: 'wrong' };
  expect(await tally([svc.url], 15, wrong, from)).toEqual({ AuthenticationFailed: 10, RateLimited: 5 });
  expect(await eventually(async () => servedBy(15).size === 2)).toBe(true);
  // A key no worker has accepted yet, on connections of their own (so both workers see it).
  const fresh = await createKey(svc.db.knex, 'after the block');
  expect(await tally([svc.url], 6, fresh, from)).toEqual({ RateLimited: 6 });
  // Both workers refused it. The primary hands each connection to a worker that is free, so on a
  // loaded machine six in a row can go to one: more, each RateLimited, until both have answered.
  let sent = 6;
  while (!(await eventually(async () => servedBy(sent).size === 2, 2_000)) && sent < 60) {
    expect(await tally([svc.url], 6, fresh, from)).toEqual({ RateLimited: 6 });
    sent += 6;
  }
  expect(servedBy(sent).size).toBe(2);
  // Another address is not blocked.
  expect(await tally([svc.url], 2, fresh, { 'X-Forwarded-For': '198.51.100.3' })).toEqual({ OK: 2 });
});
