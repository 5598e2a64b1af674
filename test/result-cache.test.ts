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

test('a request that comes after an invalidation does not share a read started before it: it reads again', async () => {
  const cache = cacheTrusted();
  const before = heldRead('before the load');
  const first = cache.get('k', before.make);
  cache.invalidate(2);
  const after = heldRead('after the load');
  const second = cache.get('k', after.make);
  expect(after.started()).toBe(1);
  after.finish();
  before.finish();
  expect((await first).body).toBe('before the load');
  expect((await second).body).toBe('after the load');
  expect(cache.lookup('k')?.body).toBe('after the load');
});

/** A cache on a clock the test moves, trusted until `until`. */
function cacheOnClock(maxBytes: number, until: number) {
  const clock = { now: 1_000 };
  const cache = new ResultCache(maxBytes, () => clock.now);
  cache.trustUntil(until);
  return { cache, clock };
}

const stored = async (cache: ResultCache, key: string, text: string) => cache.get(key, async () => new Answer(text));

test('trust ends at the instant given: from then on every request reads, and nothing read then is kept', async () => {
  const { cache, clock } = cacheOnClock(1024 * 1024, 2_000);
  await stored(cache, 'k', 'kept');
  clock.now = 1_999;
  expect(cache.lookup('k')?.body).toBe('kept');
  clock.now = 2_000;
  expect(cache.lookup('k')).toBeUndefined();
  let reads = 0;
  const read = async () => (reads++, new Answer('read'));
  const misses = cache.misses;
  expect((await cache.get('k', read)).body).toBe('read');
  expect((await cache.get('k', read)).body).toBe('read');
  expect(reads).toBe(2);
  expect(cache.misses).toBe(misses); // /metrics counts no miss for a request the cache could not serve
});

test('a read under way when trust runs out is not kept, though trust comes back', async () => {
  const { cache, clock } = cacheOnClock(1024 * 1024, 2_000);
  const read = heldRead('read as trust ran out');
  const answered = cache.get('k', read.make);
  clock.now = 2_000;
  read.finish();
  await answered;
  cache.trustUntil(5_000);
  expect(cache.lookup('k')).toBeUndefined();
});

test('trust renewed before it ends keeps the answers', async () => {
  const { cache } = cacheOnClock(1024 * 1024, 2_000);
  await stored(cache, 'k', 'kept');
  cache.trustUntil(3_000);
  expect(cache.lookup('k')?.body).toBe('kept');
});

test('an answer dropped by an invalidation and compressed afterwards for a request still holding it does not come back', async () => {
  const { cache } = cacheOnClock(1024 * 1024, 10_000);
  const old = await stored(cache, 'k', 'before the load '.repeat(100));
  cache.invalidate(2);
  await stored(cache, 'k', 'after the load '.repeat(100));
  old.encoded('gzip');
  expect(cache.lookup('k')?.body).toBe('after the load '.repeat(100));
});

test('trust given until now or earlier drops the answers: trusted again later, they are not served', async () => {
  const { cache, clock } = cacheOnClock(1024 * 1024, 2_000);
  await stored(cache, 'k', 'before');
  cache.trustUntil(clock.now);
  cache.trustUntil(clock.now + 1_000);
  expect(cache.lookup('k')).toBeUndefined();
});

test('the version given with an invalidation is the data version the next answers are read at', () => {
  const cache = cacheTrusted();
  expect(cache.dataVersion).toBeUndefined();
  cache.invalidate(7);
  expect(cache.dataVersion).toBe(7);
  cache.invalidate();
  expect(cache.dataVersion).toBeUndefined();
});

test('hits and misses are counted: a miss once per read, a hit per answer served from the cache', async () => {
  const cache = cacheTrusted();
  const read = heldRead('x');
  const first = cache.get('k', read.make);
  const shared = cache.get('k', read.make);
  read.finish();
  await Promise.all([first, shared]);
  expect([cache.hits, cache.misses]).toEqual([0, 1]);
  await cache.get('k', read.make);
  expect(cache.lookup('k')?.body).toBe('x');
  expect(cache.lookup('other')).toBeUndefined();
  expect([cache.hits, cache.misses]).toEqual([2, 1]);
});

test('a cache of 0 bytes is off: nothing is kept and every request reads', async () => {
  const cache = new ResultCache(0);
  cache.trustUntil(Date.now() + 3_600_000);
  expect(cache.enabled).toBe(false);
  let reads = 0;
  const read = async () => (reads++, new Answer('read'));
  await cache.get('k', read);
  await cache.get('k', read);
  expect(reads).toBe(2);
  expect(cache.lookup('k')).toBeUndefined();
  expect(cache.bytes).toBe(0);
  expect([cache.hits, cache.misses]).toEqual([0, 0]);
});

test('bounded by bytes: the least recently used answer is dropped first, and one larger than the whole cache is served but not kept', async () => {
  const text = (c: string) => c.repeat(400); // 800 bytes counted for the string, with the key and 128 of overhead
  const entry = new Answer(text('a')).heapSize + 1 * 2 + 64;
  expect(entry).toBe(800 + 64 + 2 + 64);
  const { cache } = cacheOnClock(3 * entry, 10_000);
  expect(cache.enabled).toBe(true);
  await stored(cache, 'a', text('a'));
  await stored(cache, 'b', text('b'));
  await stored(cache, 'c', text('c'));
  expect(cache.bytes).toBe(3 * entry);
  cache.lookup('a'); // b is now the least recently used
  await stored(cache, 'd', text('d'));
  expect(cache.lookup('b')).toBeUndefined();
  expect(['a', 'c', 'd'].map((k) => cache.lookup(k)?.body)).toEqual([text('a'), text('c'), text('d')]);

  const huge = 'h'.repeat(4 * entry);
  expect((await stored(cache, 'h', huge)).body).toBe(huge);
  expect(cache.lookup('h')).toBeUndefined();
  let reads = 0;
  await cache.get('h', async () => (reads++, new Answer(huge)));
  expect(reads).toBe(1); // read again, not kept anywhere
  expect(cache.bytes).toBe(3 * entry);
});

test('a compressed form made for a kept answer is counted against the bound: the least recently used answer makes room', async () => {
  const body = 'monster '.repeat(2_000); // compressible, 16,000 bytes (32,000 counted as a string)
  const { cache } = cacheOnClock(40_000, 10_000);
  await stored(cache, 'old', 'x'.repeat(1_000));
  const kept = await stored(cache, 'big', body);
  const before = cache.bytes;
  const gzip = kept.encoded('gzip');
  expect(cache.bytes).toBe(before + gzip.length);
  expect(cache.lookup('big')?.encoded('gzip')).toBe(gzip); // made once and kept
  // Growing past the bound (a few bytes to spare): the least recently used answer goes.
  const size = (key: string, text: string) => new Answer(text).heapSize + key.length * 2 + 64;
  const { cache: tight } = cacheOnClock(size('big', body) + size('old', 'x'.repeat(300)) + 5, 10_000);
  const grown = await stored(tight, 'big', body);
  await stored(tight, 'old', 'x'.repeat(300));
  expect(tight.lookup('old')).toBeDefined();
  grown.encoded('br');
  expect(tight.lookup('old')).toBeUndefined();
  expect(tight.lookup('big')?.body).toBe(body);
});
