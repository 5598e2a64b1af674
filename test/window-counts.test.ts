// WindowCounts (src/auth/window-counts.ts): the counts behind SVAPI_RATE_LIMIT and
// SVAPI_AUTH_FAIL_LIMIT in one process, and the host's counts for its workers. What a caller sees
// is the points granted, the key's count and the time left in its window; only Date is faked
// here, to stand at a window's edges.

import { WindowCounts } from '../src/auth/window-counts';

const WINDOW_MS = 60_000;
const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);

beforeEach(() => {
  jest.useFakeTimers({ now: T0 });
});
afterEach(() => jest.useRealTimers());

const at = (ms: number) => jest.setSystemTime(T0 + ms);

test('points are granted up to the limit; a take with none left gets 0 and counts one beyond the limit, every time', async () => {
  const counts = new WindowCounts(WINDOW_MS);
  expect(await counts.take('k', 3, 5)).toEqual({ granted: 3, used: 3, msLeft: 60_000 });
  at(10_000);
  expect(await counts.take('k', 3, 5)).toEqual({ granted: 2, used: 5, msLeft: 50_000 });
  expect(await counts.take('k', 1, 5)).toEqual({ granted: 0, used: 6, msLeft: 50_000 });
  expect(await counts.take('k', 4, 5)).toEqual({ granted: 0, used: 7, msLeft: 50_000 });
  // Another key has a count and a window of its own.
  expect(await counts.take('other', 1, 5)).toEqual({ granted: 1, used: 1, msLeft: 60_000 });
});

test('a window runs from the key\'s first point and ends on the instant: the next take starts a new one', async () => {
  const counts = new WindowCounts(WINDOW_MS);
  expect(counts.takeNow('k', 1, 1)).toEqual({ granted: 1, used: 1, msLeft: 60_000 });
  at(59_999);
  expect(counts.takeNow('k', 1, 1)).toEqual({ granted: 0, used: 2, msLeft: 1 });
  at(60_000);
  expect(counts.takeNow('k', 1, 1)).toEqual({ granted: 1, used: 1, msLeft: 60_000 });
});

test('peek tells the count and the time left without taking; none once the window has ended', async () => {
  const counts = new WindowCounts(WINDOW_MS);
  expect(await counts.peek('k')).toEqual({ used: 0, msLeft: 0 });
  counts.takeNow('k', 2, 5);
  at(20_000);
  expect(await counts.peek('k')).toEqual({ used: 2, msLeft: 40_000 });
  expect(counts.peekNow('k')).toEqual({ used: 2, msLeft: 40_000 });
  at(59_999);
  expect(counts.peekNow('k')).toEqual({ used: 2, msLeft: 1 });
  at(60_000);
  expect(counts.peekNow('k')).toEqual({ used: 0, msLeft: 0 });
});

test('dropping ended windows keeps the count of a key whose window still runs', () => {
  const counts = new WindowCounts(WINDOW_MS);
  counts.takeNow('a', 1, 5);
  at(30_000);
  counts.takeNow('b', 3, 5);
  // A new window for a third key, once a's has ended: ended windows are dropped now.
  at(60_000);
  counts.takeNow('c', 1, 5);
  expect(counts.peekNow('b')).toEqual({ used: 3, msLeft: 30_000 });
  expect(counts.takeNow('b', 5, 5)).toEqual({ granted: 2, used: 5, msLeft: 30_000 });
  expect(counts.peekNow('a')).toEqual({ used: 0, msLeft: 0 });
});
