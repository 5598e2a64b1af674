// EarlyRetries: a call on a connection whose last overload refusal was less than Retry-After ago
// waits until Retry-After has passed; other connections, and later calls, do not wait.

import { EarlyRetries, RETRY_AFTER_MS } from '../src/pipeline/early-retries';
import { OVERLOAD_RETRY_AFTER_S } from '../src/pipeline/overload-report';

beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
afterEach(() => jest.useRealTimers());

const retries = () => new EarlyRetries(() => Date.now());

/** Whether `p` has resolved by now (after the pending promise jobs). */
async function resolved(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => { done = true; });
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

test('the wait is the Retry-After the refusal announced', () => {
  expect(RETRY_AFTER_MS).toBe(OVERLOAD_RETRY_AFTER_S * 1000);
});

test('a connection never refused does not wait', () => {
  const r = retries();
  expect(r.wait({})).toBeUndefined();
});

test('a call right after a refusal on its connection waits until Retry-After has passed since the refusal', async () => {
  const r = retries();
  const connection = {};
  r.refused(connection);
  jest.advanceTimersByTime(300);
  const waiting = r.wait(connection)!;
  expect(waiting).toBeInstanceOf(Promise);
  jest.advanceTimersByTime(RETRY_AFTER_MS - 300 - 1);
  expect(await resolved(waiting)).toBe(false);
  jest.advanceTimersByTime(1);
  expect(await resolved(waiting)).toBe(true);
});

test('another connection does not wait for this one\'s refusal, and a call after Retry-After does not wait', () => {
  const r = retries();
  const refusedOne = {};
  r.refused(refusedOne);
  expect(r.wait({})).toBeUndefined();
  jest.advanceTimersByTime(RETRY_AFTER_MS);
  expect(r.wait(refusedOne)).toBeUndefined();
});

test('each refusal starts the wait again', async () => {
  const r = retries();
  const connection = {};
  r.refused(connection);
  jest.advanceTimersByTime(RETRY_AFTER_MS);
  r.refused(connection);
  const waiting = r.wait(connection)!;
  jest.advanceTimersByTime(RETRY_AFTER_MS - 1);
  expect(await resolved(waiting)).toBe(false);
  jest.advanceTimersByTime(1);
  expect(await resolved(waiting)).toBe(true);
});
