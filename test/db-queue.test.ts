// The DbQueue (src/pipeline/db-queue.ts): calls wait for a database connection in order, and are
// refused only when they would wait beyond their deadline (5 x the target from their arrival),
// whether or not the queue stands (the shortest wait of an interval above the target).
// Driven by a clock of the test's own (jest's fake timers).

import { EventEmitter } from 'node:events';
import { CallerGone, DatabaseWaitTooLong, DbQueue, type CallerConnection } from '../src/pipeline/db-queue';

const TARGET = 100;
beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
afterEach(() => jest.useRealTimers());

function queue(slots = 2) {
  return new DbQueue({ slots, targetMs: TARGET }, undefined, () => Date.now());
}

interface Entered { release?: () => void; refused?: unknown }

/** An entered call: its slot's release once granted (a turn of promises later), or the refusal. */
function enter(q: DbQueue, arrived?: number, caller?: CallerConnection): Entered {
  const state: Entered = {};
  q.enter(arrived, caller).then((r) => { state.release = r; }, (e: unknown) => { state.refused = e; });
  return state;
}

const settle = () => Promise.resolve().then(() => Promise.resolve());

/** Calls entered now, once their promises have settled. */
async function entered(q: DbQueue, n: number): Promise<Entered[]> {
  const calls = Array.from({ length: n }, () => enter(q));
  await settle();
  return calls;
}

test('a free slot is given at once; beyond the slots calls wait in order and get the slots as they free', async () => {
  const q = queue(2);
  const calls = await entered(q, 4);
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
    await settle();
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
    await settle();
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
  const [, waiting] = await entered(q, 2);
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
  await settle();
  expect(next.release).toBeDefined();
  expect(q.overloaded).toBe(false);
});

test('a call\'s time counts from its arrival, whether or not the queue stands; a free slot is given however late', async () => {
  const q = queue(1);
  const arrived = (ago: number) => enter(q, Date.now() - ago);
  // Not overloaded: a call that arrived 4 targets ago (held as an early retry, say) has one
  // target of its 5 left; one that arrived 2 targets ago waits its 3.
  const holder = arrived(0);
  await settle();
  // The next interval (the holder's slot came at once in this one).
  jest.advanceTimersByTime(5 * TARGET);
  const held = arrived(4 * TARGET);
  const calm = arrived(2 * TARGET);
  jest.advanceTimersByTime(TARGET);
  await settle();
  expect(held.refused).toBeInstanceOf(DatabaseWaitTooLong);
  expect(calm.refused).toBeUndefined();
  jest.advanceTimersByTime(2 * TARGET - 1);
  holder.release!();
  await settle();
  expect(calm.release).toBeDefined();
  // It waited 3 targets for its slot: once the interval ends the queue stands.
  jest.advanceTimersByTime(3 * TARGET);
  expect(q.overloaded).toBe(true);
  // Standing or not, a call is refused only when it would wait past its deadline: at the recent
  // hold (80 ms), one that arrived 4 targets ago, first in line, is still in time; one that arrived
  // 4.5 targets ago, behind it, is not.
  const late = arrived(4 * TARGET);
  const later = arrived(4.5 * TARGET);
  await settle();
  expect(late.refused).toBeUndefined();
  expect(later.refused).toBeInstanceOf(DatabaseWaitTooLong);
  calm.release!();
  await settle();
  expect(late.release).toBeDefined();
  late.release!();
  // A free slot: given at once, whenever the call arrived.
  const latest = arrived(10 * TARGET);
  await settle();
  expect(latest.release).toBeDefined();
  expect(q.refused).toBe(2);
});

/** Calls that each hold the only slot for `ms`, one after another: the queue learns how long a call holds it. */
async function holdInTurn(q: DbQueue, times: number, ms: number) {
  for (let i = 0; i < times; i++) {
    const [call] = await entered(q, 1);
    jest.advanceTimersByTime(ms);
    call.release!();
  }
}

test('a call that would wait beyond its deadline, at the time calls lately held a slot, is refused at once and counted', async () => {
  let counted = 0;
  const q = new DbQueue({ slots: 2, targetMs: TARGET }, () => counted++, () => Date.now());
  await holdInTurn(q, 6, 300); // calls hold a slot about 140 ms on average now
  expect(q.overloaded).toBe(false);
  const holders = await entered(q, 2);
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

test('wouldRefuse: refused at admission when waiting would make the call late, its time since arrival counted', async () => {
  const q = queue(1);
  await holdInTurn(q, 6, 100); // calls hold the slot about 47 ms on average now
  const [holder] = await entered(q, 1);
  // With no slot free: a fresh call would wait about 47 ms of its 5 targets; one that arrived
  // (or was held as an early retry) 4.9 targets ago would be late.
  expect(q.wouldRefuse(Date.now())).toBe(false);
  expect(q.wouldRefuse()).toBe(false);
  expect(q.wouldRefuse(Date.now() - 4.9 * TARGET)).toBe(true);
  // enter decides the same, and counts the refusal (wouldRefuse does not).
  const late = enter(q, Date.now() - 4.9 * TARGET);
  await settle();
  expect(late.refused).toBeInstanceOf(DatabaseWaitTooLong);
  expect(q.refused).toBe(1);
  // A free slot is given however late the call: not refused at admission either.
  holder.release!();
  expect(q.wouldRefuse(Date.now() - 10 * TARGET)).toBe(false);
});

test('while the queue stands, a freed slot goes to a call that has waited more than twice the target, within its deadline', async () => {
  const q = queue(1);
  const [holder] = await entered(q, 1);
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
  expect(late.refused).toBeUndefined();
  expect(late.release).toBeDefined();
  expect(q.refused).toBe(1);
});

test('a slot that frees is not given to a waiter past its deadline whose timer has not run yet (a busy turn): it is refused', async () => {
  let busyFor = 0;
  const q = new DbQueue({ slots: 1, targetMs: TARGET }, undefined, () => Date.now() + busyFor);
  const [holder] = await entered(q, 1);
  const waiter = enter(q);
  // The loop's clock passes the waiter's deadline while its timer cannot fire.
  busyFor = 5 * TARGET + 1;
  holder.release!();
  await settle();
  expect(waiter.release).toBeUndefined();
  expect(waiter.refused).toBeInstanceOf(DatabaseWaitTooLong);
  expect(q.refused).toBe(1);
});

test('more than a thousand waiting calls get the slot in order of arrival', async () => {
  const q = queue(1);
  const order: number[] = [];
  const [first] = await entered(q, 1);
  const got = Array.from({ length: 2_500 }, (_, i) => {
    return q.enter().then((release) => {
      order.push(i);
      return release;
    });
  });
  first.release!();
  for (const call of got) (await call)();
  expect(order).toEqual(Array.from({ length: 2_500 }, (_, i) => i));
  expect(q.waiting).toBe(0);
});

/** A caller's connection as the http server gives it (an http.ServerResponse emits 'close' once). */
function connection() {
  const emitter = new EventEmitter();
  const caller = Object.assign(emitter, { destroyed: false }) as EventEmitter & { destroyed: boolean };
  return { caller: caller as CallerConnection, close: () => { caller.destroyed = true; caller.emit('close'); } };
}

test('a waiting call whose client closes leaves the queue: not refused, not served; the calls behind it move up', async () => {
  const q = queue(1);
  const [holder] = await entered(q, 1);
  const gone = connection();
  const leaving = enter(q, undefined, gone.caller);
  const behind = enter(q, undefined, connection().caller);
  await settle();
  expect(q.waiting).toBe(2);
  gone.close();
  await settle();
  expect(leaving.refused).toBeInstanceOf(CallerGone);
  expect(q.waiting).toBe(1);
  expect(q.refused).toBe(0);
  holder.release!();
  await settle();
  expect(behind.release).toBeDefined();
  expect(leaving.release).toBeUndefined();
  // Its deadline passes later: nothing more happens to it.
  jest.advanceTimersByTime(10 * TARGET);
  await settle();
  expect([q.refused, q.waiting]).toEqual([0, 0]);
  // A caller already gone gets no slot, free or not.
  behind.release!();
  const closed = connection();
  closed.close();
  const late = enter(q, undefined, closed.caller);
  await settle();
  expect(late.refused).toBeInstanceOf(CallerGone);
  const next = enter(q);
  await settle();
  expect(next.release).toBeDefined();
});

test('a call is too late for its answer only while the queue stands and past its deadline (5 x the target from its arrival)', async () => {
  const q = queue(1);
  const [holder] = await entered(q, 1);
  const start = Date.now();
  jest.advanceTimersByTime(8 * TARGET);
  // Not overloaded: the holder got its slot at once in the last interval.
  expect(q.lateForAnswer(start)).toBe(false);
  enter(q); // waits out its deadline
  jest.advanceTimersByTime(3 * TARGET);
  enter(q);
  jest.advanceTimersByTime(2 * TARGET);
  await settle();
  expect(q.overloaded).toBe(true);
  expect(q.lateForAnswer(Date.now() - 5 * TARGET - 1)).toBe(true);
  expect(q.lateForAnswer(Date.now() - 5 * TARGET + 1)).toBe(false);
  expect(q.lateForAnswer(undefined)).toBe(false);
  holder.release!();
});

/**
 * A queue of one slot that stands (overloaded), its slot held by a call, and a call that arrived
 * one target before it entered: its deadline and its lateness count from its arrival.
 */
async function standingWithLateArrival() {
  const q = queue(1);
  const holder = enter(q);
  await settle();
  jest.advanceTimersByTime(5 * TARGET);
  const second = enter(q);
  jest.advanceTimersByTime(3 * TARGET);
  holder.release!();
  await settle();
  jest.advanceTimersByTime(3 * TARGET);
  expect(q.overloaded).toBe(true);
  // Expected wait: 1 target already spent plus the recent hold (80 ms), within the deadline.
  const late = enter(q, Date.now() - TARGET);
  await settle();
  expect(late.refused).toBeUndefined();
  return { second, late };
}

test('while the queue stands, a waiting call is refused at 5 x the target from its arrival, not from entering the queue', async () => {
  const { late } = await standingWithLateArrival();
  jest.advanceTimersByTime(4 * TARGET - 1);
  await settle();
  expect(late.refused).toBeUndefined();
  jest.advanceTimersByTime(1);
  await settle();
  expect(late.refused).toBeInstanceOf(DatabaseWaitTooLong);
});

test('while the queue stands, a slot that frees goes to a waiter within its deadline, the time before it entered counted', async () => {
  const { second, late } = await standingWithLateArrival();
  // 1.5 targets in the queue, 2.5 since its arrival: more than twice the target, within 5.
  jest.advanceTimersByTime(1.5 * TARGET);
  second.release!();
  await settle();
  expect(late.refused).toBeUndefined();
  expect(late.release).toBeDefined();
});
