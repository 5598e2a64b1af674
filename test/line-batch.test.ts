// The access log's batch (src/log.ts LineBatch): lines reach the output whole, in order, once,
// when enough wait or when the interval comes, and pino writes the same lines through it as
// straight to a stream.

import pino from 'pino';
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

test('pino writes the same lines through a batch as straight to a stream', () => {
  const straight: string[] = [];
  const batched: string[] = [];
  const options = { base: { svc: 'svapi' }, timestamp: false };
  const direct = pino(options, { write: (line: string) => void straight.push(line) });
  const batch = new LineBatch((text) => batched.push(text), 4096, 100);
  const throughBatch = pino(options, batch);
  for (const logger of [direct, throughBatch]) {
    for (let i = 0; i < 40; i++) logger.info({ requestId: `r${i}`, endpoint: '/API/hunting.asmx', devId: i, note: 'Camp Ñandú "q" \\ \u0001' }, 'request');
  }
  batch.flush();
  expect(batched.length).toBeGreaterThan(1);
  expect(batched.join('')).toBe(straight.join(''));
  expect(straight).toHaveLength(40);
});
