// The answer cache on its own (src/cache/result-cache.ts): the orderings a service cannot force on
// demand, made here with reads that finish only when the test says so.

import { ResultCache } from '../src/cache/result-cache';
import { Answer } from '../src/http/answer';

/** A read the test finishes by hand, and how many times it was started. */
function heldRead(text: string) {
  let finish!: () => void;
  let started = 0;
  const gate = new Promise<void>((resolve) => (finish = resolve));
  const make = async () => {
    started++;
    await gate;
    return new Answer(text);
  };
  return { make, finish, started: () => started };
}

const cacheTrusted = () => {
  const cache = new ResultCache(1024 * 1024);
  cache.trustUntil(Date.now() + 3_600_000);
  return cache;
};

test('an answer read before an invalidation is given to its caller but not kept: the next request reads again', async () => {
  const cache = cacheTrusted();
  const before = heldRead('before the load');
  const answered = cache.get('k', before.make);
  expect(before.started()).toBe(1);

  cache.invalidate(2); // a load commits while the read is under way
  before.finish();
  expect((await answered).body).toBe('before the load');

  const after = heldRead('after the load');
  after.finish();
  expect((await cache.get('k', after.make)).body).toBe('after the load');
  expect(after.started()).toBe(1);
  expect(cache.lookup('k')?.body).toBe('after the load');
});

test('a read that finishes with no invalidation under way is kept, and concurrent misses share it', async () => {
  const cache = cacheTrusted();
  const read = heldRead('current');
  const first = cache.get('k', read.make);
  const second = cache.get('k', read.make);
  read.finish();
  expect((await first).body).toBe('current');
  expect((await second).body).toBe('current');
  expect(read.started()).toBe(1);
  expect(cache.lookup('k')?.body).toBe('current');
});

test('an answer read while the cache was trusted is not kept once trust ends before it finishes', async () => {
  const cache = cacheTrusted();
  const read = heldRead('read while trusted');
  const answered = cache.get('k', read.make);
  cache.trustUntil(0); // the watcher lost track of the data (LISTEN connection down, check failed)
  read.finish();
  expect((await answered).body).toBe('read while trusted');
  cache.trustUntil(Date.now() + 3_600_000);
  expect(cache.lookup('k')).toBeUndefined();
});
