// LeasedCounter (src/auth/leases.ts): processes sharing one count take points in leases and count
// them locally. Several counters over one shared count (as the workers of a host over their
// primary, or instances over Redis), driven without any process or network.

import { FIRST_LEASE, LeasedCounter, LimitExceeded, MAX_GROWN_LEASE, mostHeld } from '../src/auth/leases';
import { WindowCounts, type SharedCounts } from '../src/auth/window-counts';

/** One shared count, answered asynchronously (as over IPC or Redis), with the takes it was asked. */
function sharedCount() {
  const counts = new WindowCounts(60_000);
  const asked: number[] = [];
  const shared: SharedCounts = {
    take: async (key, want, limit) => {
      asked.push(want);
      await new Promise((r) => setImmediate(r));
      return counts.takeNow(key, want, limit);
    },
    peek: async (key) => counts.peekNow(key),
  };
  return { shared, asked };
}

async function outcome(counter: LeasedCounter, key: string): Promise<'OK' | 'RateLimited'> {
  try {
    if (counter.consumeNow(key) !== true) await counter.consume(key);
    return 'OK';
  } catch (e) {
    if (e instanceof LimitExceeded) return 'RateLimited';
    throw e;
  }
}

test('150 requests in turn over 4 processes at a limit of 100: exactly 100 answered', async () => {
  const { shared } = sharedCount();
  const processes = Array.from({ length: 4 }, () => new LeasedCounter(shared, 100, 60_000));
  const tally: Record<string, number> = {};
  for (let i = 0; i < 150; i++) {
    const o = await outcome(processes[i % 4], 'k');
    tally[o] = (tally[o] ?? 0) + 1;
  }
  expect(tally).toEqual({ OK: 100, RateLimited: 50 });
});

test('150 requests in turn, all but three to one of 4 processes (as workers that accept their own connections get them): exactly 100 answered', async () => {
  const { shared, asked } = sharedCount();
  const processes = Array.from({ length: 4 }, () => new LeasedCounter(shared, 100, 60_000));
  const tally: Record<string, number> = {};
  for (let i = 0; i < 150; i++) {
    const o = await outcome(processes[i < 3 ? i + 1 : 0], 'k');
    tally[o] = (tally[o] ?? 0) + 1;
  }
  // The three processes that got one request each hold no point the others lack.
  expect(tally).toEqual({ OK: 100, RateLimited: 50 });
  expect(asked.every((want) => want === FIRST_LEASE)).toBe(true);
});

test('concurrent requests over 4 processes never get more than the limit', async () => {
  const { shared } = sharedCount();
  const processes = Array.from({ length: 4 }, () => new LeasedCounter(shared, 100, 60_000));
  const outcomes = await Promise.all(Array.from({ length: 400 }, (_, i) => outcome(processes[i % 4], 'k')));
  const ok = outcomes.filter((o) => o === 'OK').length;
  expect(ok).toBeLessThanOrEqual(100);
  // Three of the processes may each hold points unused when the fourth's requests are refused.
  expect(ok).toBeGreaterThanOrEqual(100 - 3 * mostHeld(100));
});

test('concurrent requests that then stop reaching 3 of 4 processes: at most 3 x mostHeld short of the limit, never over it', async () => {
  const { shared } = sharedCount();
  const processes = Array.from({ length: 4 }, () => new LeasedCounter(shared, 1000, 60_000));
  // Bursts to every process make their leases grow, then only process 0 gets requests.
  let ok = 0;
  for (let turn = 0; turn < 10; turn++) {
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => outcome(processes[i % 4], 'k')));
    ok += outcomes.filter((o) => o === 'OK').length;
  }
  for (;;) {
    if ((await outcome(processes[0], 'k')) === 'RateLimited') break;
    ok++;
  }
  expect(ok).toBeLessThanOrEqual(1000);
  expect(ok).toBeGreaterThanOrEqual(1000 - 3 * mostHeld(1000));
  // The grown leases did hold points the last requests could not reach.
  expect(ok).toBeLessThan(1000);
});

test('requests one at a time are each counted in the shared count; concurrent ones from leases taken ahead; near the limit every request exactly', async () => {
  const { shared, asked } = sharedCount();
  const counter = new LeasedCounter(shared, 600, 60_000);
  let waited = 0;
  // One request a turn of the event loop, each answered before the next: they never meet.
  for (let i = 0; i < 20; i++) {
    if (counter.consumeNow('k') !== true) {
      waited++;
      await counter.consume('k');
    }
    await new Promise((r) => setImmediate(r));
  }
  expect(waited).toBe(20);
  expect(asked).toEqual(Array(20).fill(FIRST_LEASE));
  // Four requests a turn: they meet, the leases grow and are taken ahead, so few wait.
  waited = 0;
  for (let turn = 0; turn < 50; turn++) {
    await Promise.all(Array.from({ length: 4 }, async () => {
      if (counter.consumeNow('k') !== true) {
        waited++;
        await counter.consume('k');
      }
    }));
    await new Promise((r) => setImmediate(r));
  }
  expect(waited).toBeLessThan(40);
  expect(asked.length).toBeLessThan(20 + 60);
  // Drain the rest of the window: the leases shrink to one point each.
  let answered = 220;
  for (;;) {
    if ((await outcome(counter, 'k')) === 'RateLimited') break;
    answered++;
    await new Promise((r) => setImmediate(r));
  }
  expect(answered).toBe(600);
  expect(asked.slice(-10, -1).every((want) => want === 1)).toBe(true);
});

test('exact counting takes one point per request from the shared count', async () => {
  const { shared, asked } = sharedCount();
  const counter = new LeasedCounter(shared, 3, 60_000, true);
  const outcomes = [];
  for (let i = 0; i < 5; i++) outcomes.push(await outcome(counter, 'k'));
  expect(outcomes).toEqual(['OK', 'OK', 'OK', 'RateLimited', 'RateLimited']);
  expect(asked).toEqual([1, 1, 1, 1]);
  // The refused take is counted beyond the limit: the shared count shows the address over it.
  expect((await shared.peek('k')).used).toBe(4);
});

test('a burst of requests waiting for one key is served by one take, not one per request', async () => {
  const { shared, asked } = sharedCount();
  const counter = new LeasedCounter(shared, 1_000_000, 60_000);
  const outcomes = await Promise.all(Array.from({ length: 500 }, () => outcome(counter, 'k')));
  expect(outcomes.every((o) => o === 'OK')).toBe(true);
  // The first request asks alone (FIRST_LEASE); the 499 that arrive meanwhile are counted in the next take.
  expect(asked.length).toBeLessThanOrEqual(3);
  expect(asked[1]).toBeGreaterThanOrEqual(490);
});

test('requests that meet make the leases grow (up to MAX_GROWN_LEASE): bursts do not wait a take per few requests', async () => {
  const { shared, asked } = sharedCount();
  const counter = new LeasedCounter(shared, 1_000_000, 60_000);
  // 200 requests at once per turn of the event loop, as 64 connections on cached answers bring them.
  for (let turn = 0; turn < 20; turn++) {
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => outcome(counter, 'k')));
    expect(outcomes.every((o) => o === 'OK')).toBe(true);
  }
  expect(Math.max(...asked)).toBe(MAX_GROWN_LEASE);
  // 4,000 requests: with leases of 10 that was at least 400 takes.
  expect(asked.length).toBeLessThan(40);
  // Near a limit the leases still shrink to a tenth of what is left: the limit holds.
  const { shared: near } = sharedCount();
  const limited = new LeasedCounter(near, 300, 60_000);
  const all = await Promise.all(Array.from({ length: 400 }, () => outcome(limited, 'k')));
  expect(all.filter((o) => o === 'OK').length).toBe(300);
});
