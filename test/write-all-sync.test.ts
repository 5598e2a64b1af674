// The logs' write (src/log.ts writeAllSync: the access log's batches and pino's lines) to a
// non-blocking descriptor whose reader is behind, as stdout is when it is a socket (systemd's
// journal): every byte arrives, in order, and while the descriptor is full the process waits in
// sleeps of a millisecond, not sonic-boom's 100 ms.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WRITE_WAIT_MS, writeAllSync } from '../src/log';
import { namedPipe, readWaiting } from './support/named-pipe';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-write-all-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A pipe whose two ends are both non-blocking. */
const nonBlockingPipe = (name: string) => namedPipe(path.join(dir, name), fs.constants.O_NONBLOCK);

// mkfifo and a pipe's non-blocking ends are POSIX.
const onPosix = process.platform === 'win32' ? test.skip : test;

onPosix('behind a slow reader of a full descriptor, every byte arrives in order, after short waits only', () => {
  const { readEnd, writeEnd } = nonBlockingPipe('slow');
  try {
    // Fill the pipe: the next write fails with EAGAIN until the reader takes some.
    const filler = Buffer.alloc(4096, 'f');
    let filled = 0;
    for (;;) {
      try {
        filled += fs.writeSync(writeEnd, filler);
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe('EAGAIN');
        break;
      }
    }
    const bytes = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`).join(''));
    const received: Buffer[] = [];
    const waits: number[] = [];
    // The reader takes 8 KB after every fifth wait: the writer waits several times in a row.
    writeAllSync(writeEnd, bytes, (ms) => {
      waits.push(ms);
      if (waits.length % 5 === 0) received.push(readWaiting(readEnd, 8192));
    });
    for (let more; (more = readWaiting(readEnd, 65_536)).length > 0;) received.push(more);
    const all = Buffer.concat(received);
    expect(all.length).toBe(filled + bytes.length);
    expect(all.subarray(0, filled).every((b) => b === 0x66)).toBe(true);
    expect(all.subarray(filled).equals(bytes)).toBe(true);
    // It waited each time a millisecond, not sonic-boom's 100, five times for every 8 KB taken.
    expect(WRITE_WAIT_MS).toBe(1);
    expect(waits.length).toBeGreaterThanOrEqual(5 * Math.floor(bytes.length / 8192));
    expect(new Set(waits)).toEqual(new Set([WRITE_WAIT_MS]));
  } finally {
    fs.closeSync(readEnd);
    fs.closeSync(writeEnd);
  }
});

onPosix('a reader that is gone is an error, not a wait', () => {
  const { readEnd, writeEnd } = nonBlockingPipe('gone');
  fs.closeSync(readEnd);
  const waits: number[] = [];
  try {
    expect(() => writeAllSync(writeEnd, Buffer.from('line\n'), (ms) => waits.push(ms))).toThrow(expect.objectContaining({ code: 'EPIPE' }));
    expect(waits).toEqual([]);
  } finally {
    fs.closeSync(writeEnd);
  }
});

test('a write that does not block does not sleep', () => {
  const file = path.join(dir, 'file');
  const fd = fs.openSync(file, 'w');
  const waits: number[] = [];
  try {
    writeAllSync(fd, Buffer.from('a\nb\n'), (ms) => waits.push(ms));
  } finally {
    fs.closeSync(fd);
  }
  expect(fs.readFileSync(file, 'utf8')).toBe('a\nb\n');
  expect(waits).toEqual([]);
});
