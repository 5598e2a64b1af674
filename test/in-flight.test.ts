// InFlightLimit: admission of an operation call. A call that waited for a slice of a turn
// (TurnSlices) longer than the event loop's longest delay is refused as the loop's overload,
// counted, and the call is not counted in; a shorter wait is no reason to refuse.

import { EventEmitter } from 'node:events';
import { InFlightLimit } from '../src/pipeline/in-flight';
import { EventLoopGuard } from '../src/pipeline/event-loop-guard';
import { OverloadReport } from '../src/pipeline/overload-report';
import type { Res } from '../src/http/exchange';
import { capturedLogger } from './support/captured-log';

const MAX_DELAY_MS = 500;
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

test('a call that waited for its slice up to the loop\'s longest delay is admitted, and counted out when its response closes', () => {
  const limit = new InFlightLimit(10, loop, report);
  const res = response();
  const release = limit.admit(res, undefined, MAX_DELAY_MS);
  expect(release).toBeInstanceOf(Function);
  expect(limit.inFlight).toBe(1);
  res.emit('close');
  expect(limit.inFlight).toBe(0);
  expect(report.refused['event-loop']).toBe(0);
});

test('a call that waited for its slice longer than the loop\'s longest delay is refused as the loop\'s overload', () => {
  const limit = new InFlightLimit(10, loop, report);
  expect(limit.admit(response(), undefined, MAX_DELAY_MS + 1)).toBeUndefined();
  expect(limit.inFlight).toBe(0);
  expect(report.refused).toEqual({ 'event-loop': 1, 'database-wait': 0, ceiling: 0 });
  // The next call, taken up in time, is admitted.
  expect(limit.admit(response())).toBeInstanceOf(Function);
});
