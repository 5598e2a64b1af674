// Admission and the event loop's guard: a call taken up in a later turn's slice (TurnSlices) waited
// for the event loop where no timer sees it. Its wait counts as the loop's delay: when calls wait
// longer than SVAPI_MAX_EVENT_LOOP_DELAY_MS in two readings in a row, the loop busy, calls are
// refused as the loop's overload; the same busy loop with calls taken up at once refuses none.

import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { InFlightLimit } from '../src/pipeline/in-flight';
import { EVENT_LOOP_SAMPLE_MS, EventLoopGuard } from '../src/pipeline/event-loop-guard';
import { OverloadReport } from '../src/pipeline/overload-report';
import type { Res } from '../src/http/exchange';
import { capturedLogger } from './support/captured-log';
import { busyFor } from './support/busy';

const MAX_DELAY_MS = 200;
let loop: EventLoopGuard;
let report: OverloadReport;

beforeEach(() => {
  loop = new EventLoopGuard(MAX_DELAY_MS);
  report = new OverloadReport(capturedLogger().logger, () => ({}));
});
afterEach(() => {
  loop.stop();
  report.stop();
});

const response = () => Object.assign(new EventEmitter(), { locals: {} }) as unknown as Res;

/**
 * For three readings, a busy loop of short turns (5 ms: no timer is late by more), each admitting
 * one call that waited `waitedMs` for its slice; what admission answered, in order.
 */
async function busyTurns(limit: InFlightLimit, waitedMs: number): Promise<boolean[]> {
  const admitted: boolean[] = [];
  const until = performance.now() + 3 * EVENT_LOOP_SAMPLE_MS + 50;
  while (performance.now() < until) {
    busyFor(5);
    const counted = limit.admit(response(), undefined, waitedMs);
    admitted.push(counted);
    if (counted) limit.release();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return admitted;
}

test('calls that waited for their slice longer than the loop\'s longest delay, in two readings in a row, are refused as the loop\'s overload', async () => {
  const limit = new InFlightLimit(10, loop, report);
  const admitted = await busyTurns(limit, 3 * MAX_DELAY_MS);
  // Admitted through the first two readings, refused from then on.
  expect(admitted[0]).toBe(true);
  expect(admitted[admitted.length - 1]).toBe(false);
  expect(loop.delayMs).toBeGreaterThanOrEqual(3 * MAX_DELAY_MS);
  expect(report.refused['event-loop']).toBeGreaterThan(0);
  expect(limit.inFlight).toBe(0);
});

test('the same busy loop with every call taken up at once refuses none', async () => {
  const limit = new InFlightLimit(10, loop, report);
  const admitted = await busyTurns(limit, 0);
  expect(admitted.every(Boolean)).toBe(true);
  expect(loop.delayMs).toBeLessThan(MAX_DELAY_MS);
  expect(report.refused['event-loop']).toBe(0);
});

test('one reading with a long wait is no overload: the next call is admitted', async () => {
  const limit = new InFlightLimit(10, loop, report);
  expect(limit.admit(response(), undefined, 3 * MAX_DELAY_MS)).toBe(true);
  limit.release();
  await busyTurns(limit, 0);
  expect(report.refused['event-loop']).toBe(0);
});
