// The access log's batch (src/log.ts LineBatch): lines reach the output whole, in order, once,
// when enough wait or when the interval comes.

import { LineBatch } from '../src/log';

afterEach(() => {
  jest.useRealTimers();
});

test('lines wait while they fit in the bytes allowed, then go out joined, in order, once; no write is longer', () => {
  jest.useFakeTimers();
  const out: string[] = [];
  const batch = new LineBatch((text) => out.push(text), 10, 100);
  batch.write('abc\n');
  batch.write('déf\n'); // 5 bytes: é is two in UTF-8
  expect(out).toEqual([]);
  // 9 bytes wait; 4 more would make 13: what waits goes first.
  batch.write('ghi\n');
  expect(out).toEqual(['abc\ndéf\n']);
  batch.write('jkl\n');
  expect(out).toEqual(['abc\ndéf\n']);
  // Exactly 10 bytes: out at once.
  batch.write('m\n');
  expect(out).toEqual(['abc\ndéf\n', 'ghi\njkl\nm\n']);
  // A line longer than the limit goes alone, after what waits.
  batch.write('n\n');
  batch.write(`${'x'.repeat(20)}\n`);
  expect(out).toEqual(['abc\ndéf\n', 'ghi\njkl\nm\n', 'n\n', `${'x'.repeat(20)}\n`]);
  batch.flush();
  expect(out).toHaveLength(4);
  expect(out.every((t) => Buffer.byteLength(t) <= 10 || !t.slice(0, -1).includes('\n'))).toBe(true);
});

test('what waits goes out on the interval, and an empty batch writes nothing', () => {
  jest.useFakeTimers();
  const out: string[] = [];
  const batch = new LineBatch((text) => out.push(text), 4096, 100);
  batch.write('one\n');
  batch.write('two\n');
  jest.advanceTimersByTime(99);
  expect(out).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(out).toEqual(['one\ntwo\n']);
  jest.advanceTimersByTime(500);
  expect(out).toEqual(['one\ntwo\n']);
});
