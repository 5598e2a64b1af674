// The DbQueue (src/pipeline/db-queue.ts): calls wait for a database connection in order; CoDel
// refuses only once the queue stands (the shortest wait of an interval above the target), and no
// call waits beyond 5 x the target. Driven by a clock of the test's own (jest's fake timers).

import { DatabaseWaitTooLong, DbQueue } from '../src/pipeline/db-queue';

const TARGET = 100;
beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
afterEach(() => jest.useRealTimers());

function queue(slots = 2) {
  return new DbQueue({ slots, targetMs: TARGET }, undefined, () => Date.now());
}

/** An entered call: its slot's release once granted, or the refusal. */
function enter(q: DbQueue) {
  const state: { release?: () => void; refused?: unknown } = {};
  const got = q.enter();
  if (got instanceof Promise) got.then((r) => { state.release = r; }, (e: unknown) => { state.refused = e; });
  else state.release = got;
  return state;
}

const settle = () => Promise.resolve().then(() => Promise.resolve());

test('a free slot is given at once; beyond the slots calls wait in order and get the slots as they free', async () => {
  const q = queue(2);
  const calls = [enter(q), enter(q), enter(q), enter(q)];
  expect(calls.map((c) => Boolean(c.release))).toEqual([true, true, false, false]);
  expect(q.waiting).toBe(2);
  calls[1].release!();
  await settle();
  expect(calls.map((c) => Boolean(c.release))).toEqual([true, true, true, false]);
  calls[1].release!(); // a second release of the same slot frees nothing
  await settle();
  expect(calls[3].release).toBeUndefined();
});

/** Releases the slot of the call that got it first among those still holding one. */
function releaseOldest(calls: ReturnType<typeof enter>[], done: Set<object>) {
  const holder = calls.find((c) => c.release && !done.has(c))!;
  done.add(holder);
  holder.release!();
}

test('a burst that drains within an interval is served whole, though its calls waited beyond the target', async () => {
  const q = queue(2);
  const calls = Array.from({ length: 10 }, () => enter(q));
  const done = new Set<object>();
  // Every 60 ms a slot frees: the last of the burst waits 240 ms, more than twice the target.
  for (let i = 0; i < 8; i++) {
    jest.advanceTimersByTime(60);
    releaseOldest(calls, done);
    await settle();
  }
  expect(calls.every((c) => c.release && !c.refused)).toBe(true);
  expect(q.refused).toBe(0);
  expect(q.overloaded).toBe(false);
});

test('a standing queue (no call through within the target for an interval): late waiters are refused, the rest served', async () => {
  const q = queue(1);
  const calls = [enter(q)];
  const done = new Set<object>();
  // One slot, freed every 150 ms, two calls arriving meanwhile: every wait is above the target.
  for (let t = 0; t < 20; t++) {
    calls.push(enter(q), enter(q));
    jest.advanceTimersByTime(150);
    releaseOldest(calls, done);
    await settle();
  }
  expect(q.overloaded).toBe(true);
  const refused = calls.filter((c) => c.refused);
  expect(refused.length).toBeGreaterThan(5);
  expect(refused.every((c) => c.refused instanceof DatabaseWaitTooLong)).toBe(true);
  expect(q.refused).toBe(refused.length);
  // Calls are still served while overloaded: one per freed slot.
  expect(calls.filter((c) => c.release).length).toBe(21);
});

test('with the database not answering, a waiting call is refused after 5 x the target, not before', async () => {
  const q = queue(1);
  enter(q);
  const waiting = enter(q);
  jest.advanceTimersByTime(5 * TARGET - 1);
  await settle();
  expect(waiting.refused).toBeUndefined();
  jest.advanceTimersByTime(2);
  await settle();
  expect(waiting.refused).toBeInstanceOf(DatabaseWaitTooLong);
  expect(q.waiting).toBe(0);
  expect(q.refused).toBe(1);
});

test('once the queue empties, the next interval is not overloaded: calls are served at once again', async () => {
  const q = queue(1);
  const holder = enter(q);
  const late = [enter(q), enter(q)];
  jest.advanceTimersByTime(5 * TARGET + 1);
  await settle();
  expect(late.every((c) => c.refused)).toBe(true);
  holder.release!();
  jest.advanceTimersByTime(25 * TARGET);
  const next = enter(q);
  expect(next.release).toBeDefined();
  expect(q.overloaded).toBe(false);
});

test('while the queue stands, a call\'s time counts from its arrival; otherwise from entering the queue; a free slot is given however late', async () => {
  const q = queue(1);
  const arrived = (ago: number) => {
    const state: { release?: () => void; refused?: unknown } = {};
    const got = q.enter(Date.now() - ago);
    if (got instanceof Promise) got.then((r) => { state.release = r; }, (e: unknown) => { state.refused = e; });
    else state.release = got;
    return state;
  };
  // Not overloaded: a call that arrived 4 targets ago waits as long as a fresh one.
  const holder = arrived(0);
  // The next interval (the holder's slot came at once in this one).
  jest.advanceTimersByTime(5 * TARGET);
  const calm = arrived(4 * TARGET);
  jest.advanceTimersByTime(3 * TARGET);
  await settle();
  expect(calm.refused).toBeUndefined();
  holder.release!();
  await settle();
  expect(calm.release).toBeDefined();
  // It waited 3 targets for its slot: once the interval ends the queue stands.
  jest.advanceTimersByTime(3 * TARGET);
  expect(q.overloaded).toBe(true);
  // Overloaded: one that arrived 4 targets ago is already later than twice the target: refused at
  // once; a fresh one waits.
  const late = arrived(4 * TARGET);
  const fresh = arrived(0);
  await settle();
  expect(late.refused).toBeInstanceOf(DatabaseWaitTooLong);
  expect(fresh.refused).toBeUndefined();
  calm.release!();
  await settle();
  expect(fresh.release).toBeDefined();
  fresh.release!();
  // A free slot: given at once, whenever the call arrived.
  expect(arrived(10 * TARGET).release).toBeDefined();
  expect(q.refused).toBe(1);
});

/** Calls that each hold the only slot for `ms`, one after another: the queue learns how long a call holds it. */
function holdInTurn(q: DbQueue, times: number, ms: number) {
  for (let i = 0; i < times; i++) {
    const call = enter(q);
    jest.advanceTimersByTime(ms);
    call.release!();
  }
}

test('a call that would wait beyond its deadline, at the time calls lately held a slot, is refused at once and counted', async () => {
  let counted = 0;
  const q = new DbQueue({ slots: 2, targetMs: TARGET }, () => counted++, () => Date.now());
  holdInTurn(q, 6, 300); // calls hold a slot about 140 ms on average now
  expect(q.overloaded).toBe(false);
  const holders = [enter(q), enter(q)];
  // Over two slots, seven waiters ahead wait about 7 / 2 x 140 ms, within the deadline (5 x 100 ms); an eighth would not be served in time.
  const waiters = Array.from({ length: 7 }, () => enter(q));
  await settle();
  expect(waiters.every((c) => !c.refused)).toBe(true);
  const late = enter(q);
  await settle();
  expect(late.refused).toBeInstanceOf(DatabaseWaitTooLong);
  expect([q.refused, counted, q.waiting]).toEqual([1, 1, 7]);
  holders[0].release!();
  await settle();
  expect(waiters[0].release).toBeDefined();
});

test('while the queue stands, a freed slot does not go to a call that has already waited more than twice the target: it is refused then', async () => {
  const q = queue(1);
  const holder = enter(q);
  jest.advanceTimersByTime(800);
  const first = enter(q); // waits out its deadline: no call gets through within the interval
  jest.advanceTimersByTime(300);
  const late = enter(q);
  jest.advanceTimersByTime(200);
  await settle();
  expect(first.refused).toBeInstanceOf(DatabaseWaitTooLong);
  expect(q.overloaded).toBe(true);
  jest.advanceTimersByTime(50); // the late call has waited 250 ms, within its deadline
  expect(late.refused).toBeUndefined();
  holder.release!();
  await settle();
  expect(late.release).toBeUndefined();
  expect(late.refused).toBeInstanceOf(DatabaseWaitTooLong);
  expect(q.refused).toBe(2);
});

test('more than a thousand waiting calls get the slot in order of arrival', async () => {
  const q = queue(1);
  const order: number[] = [];
  const first = enter(q);
  const got = Array.from({ length: 2_500 }, (_, i) => {
    const call = q.enter();
    if (!(call instanceof Promise)) throw new Error('the slot is taken: the call should wait');
    return call.then((release) => {
      order.push(i);
      return release;
    });
  });
  first.release!();
  for (const call of got) (await call)();
  expect(order).toEqual(Array.from({ length: 2_500 }, (_, i) => i));
  expect(q.waiting).toBe(0);
});
