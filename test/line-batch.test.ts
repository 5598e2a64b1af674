// The access log's batch (src/log.ts LineBatch): lines reach the output whole, in order, once,
// when enough wait or when the interval comes.

import { LineBatch } from '../src/log';

afterEach(() => {
  jest.useRealTimers();
});

test('lines wait until enough characters are waiting, then go out joined, in order, once', () => {
  jest.useFakeTimers();
  const out: string[] = [];
  const batch = new LineBatch((text) => out.push(text), 10, 100);
  batch.write('abc\n');
  batch.write('déf\n');
  expect(out).toEqual([]);
  batch.write('ghi\n');
  expect(out).toEqual(['abc\ndéf\nghi\n']);
  batch.write('jkl\n');
  expect(out).toEqual(['abc\ndéf\nghi\n']);
  batch.flush();
  batch.flush();
  expect(out).toEqual(['abc\ndéf\nghi\n', 'jkl\n']);
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
