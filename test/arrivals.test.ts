// When a call may have arrived (src/pipeline/arrivals.ts): a request read in a turn that followed
// the previous one without the loop sleeping counts from that turn's first request.

import { performance } from 'node:perf_hooks';
import { Arrivals, SLEPT_MS } from '../src/pipeline/arrivals';
import { busyFor } from './support/busy';

/** The next turn of the event loop (after this turn's immediates, the end-of-turn mark among them). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('with a given idle clock: a turn after no sleep counts from the last turn; after a sleep, from its own first request', async () => {
  let idle = 0;
  const arrivals = new Arrivals(() => idle);
  expect(arrivals.arrival(1000)).toBe(1000);
  // Later requests of the same turn count from its floor, never from after they were read.
  expect(arrivals.arrival(1040)).toBe(1000);
  await nextTurn();
  // The loop did not sleep: the requests of this turn may have come as soon as the last turn read.
  expect(arrivals.arrival(1300)).toBe(1000);
  expect(arrivals.arrival(1350)).toBe(1000);
  await nextTurn();
  idle += 0.5;
  expect(arrivals.arrival(1400)).toBe(1300);
  await nextTurn();
  // It slept: this turn was woken by what it reads.
  idle += 25;
  expect(arrivals.arrival(1700)).toBe(1700);
  expect(arrivals.arrival(1710)).toBe(1700);
});

test("with the event loop's own idle time: a busy turn counts back, a sleep does not", async () => {
  const arrivals = new Arrivals();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const first = performance.now();
  expect(arrivals.arrival(first)).toBe(first);
  await nextTurn();
  // The turn before ran 100 ms without the loop sleeping: a request read now may have waited all of it.
  busyFor(100);
  const second = performance.now();
  expect(arrivals.arrival(second)).toBe(first);
  // The loop sleeps waiting for a timer: the next turn's requests count from their own. On a busy
  // machine other work of this process (a test file before, a worker's IPC) can keep the loop from
  // sleeping through one wait, so it waits until the loop has slept.
  const idleBefore = performance.eventLoopUtilization().idle;
  do await new Promise((resolve) => setTimeout(resolve, 30));
  while (performance.eventLoopUtilization().idle - idleBefore < 2 * SLEPT_MS);
  const third = performance.now();
  expect(arrivals.arrival(third)).toBe(third);
});
