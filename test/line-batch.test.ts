// The access log's batch (src/log.ts LineBatch): lines reach the output whole, in order, once,
// when enough wait or when the interval comes.

import { LineBatch } from '../src/log';

afterEach(() => {
  jest.useRealTimers();
});

test('lines wait while they fit in the bytes allowed, then go out joined, in order, once; no write is longer', () => {
  jest.useFakeTimers();
  const out: string[] = [];
  const batch = new LineBatch((bytes) => out.push(bytes.toString()), 10, 100);
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
  const batch = new LineBatch((bytes) => out.push(bytes.toString()), 4096, 100);
  batch.write('one\n');
  batch.write('two\n');
  jest.advanceTimersByTime(99);
  expect(out).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(out).toEqual(['one\ntwo\n']);
  jest.advanceTimersByTime(500);
  expect(out).toEqual(['one\ntwo\n']);
});

test('a batch handed on stays as it was while the next lines are written', () => {
  const kept: Buffer[] = [];
  const batch = new LineBatch((bytes) => kept.push(bytes), 8, 100);
  batch.write('aaaa\n');
  batch.write('bbbb\n');
  batch.write('cccc\n');
  batch.flush();
  expect(kept.map((b) => b.toString())).toEqual(['aaaa\n', 'bbbb\n', 'cccc\n']);
});

test('lines are measured in UTF-8 where they might not fit: three-byte and four-byte characters near the end', () => {
  const out: string[] = [];
  const batch = new LineBatch((bytes) => out.push(bytes.toString()), 12, 100);
  batch.write('ab\n'); // 3 bytes
  batch.write('€€\n'); // 7 bytes (3 + 3 + 1): 10 in all
  batch.write('😀\n'); // 5 bytes: 15 would not fit
  batch.write('x\n');
  batch.flush();
  expect(out).toEqual(['ab\n€€\n', '😀\nx\n']);
});
