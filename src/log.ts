import fs from 'node:fs';
import pino from 'pino';

export type Logger = pino.Logger;

/** What every line of the service carries besides its own fields (pino's `base`). */
export const LOG_BASE = { svc: 'svapi', pid: process.pid } as const;

/** stdout as the logs write it: each line whole, at once (writeAllSync), on the process's own description (stdoutFd). */
const STDOUT: pino.DestinationStream = { write: (line: string) => writeAllSync(stdoutFd(), Buffer.from(line)) };

/** The service's logger: JSON lines on stdout, or on `destination`. */
export function createLogger(level: string, destination: pino.DestinationStream = STDOUT): Logger {
  return pino({ level, base: LOG_BASE, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}

/** Where a kind of line goes: each whole, its newline included. */
export interface LineSink {
  write(line: string): void;
}

/**
 * A batch is written once another line would take it past this many bytes (PIPE_BUF on Linux), or
 * after BATCH_MS. The workers share one stdout: a write to a pipe of at most PIPE_BUF bytes goes in
 * whole, where a longer one can be cut by another process's write when the pipe is full (a log
 * collector behind), and two lines come out mixed (test/access-log-pipe.test.ts).
 */
const BATCH_BYTES = 4096;
const BATCH_MS = 100;

/**
 * The access log of `svapi serve` (none when `level` leaves out info): its lines on stdout,
 * written in batches (up to 4 KB, and at least every 100 ms) instead of one write(2) per request,
 * which took about an eighth of the CPU of a cached answer. Each batch is written synchronously
 * (writeAllSync), so none is ever half-way in the thread pool, and whatever waits is written at
 * exit; a SIGKILL can lose the last 100 ms. Other lines keep the plain logger (one write each, in
 * order with the start-up lines).
 */
export function createAccessLog(level: string): LineSink | undefined {
  if ((pino.levels.values[level] ?? Infinity) > pino.levels.values.info) return undefined;
  const fd = stdoutFd();
  const batch = new LineBatch((bytes) => writeAllSync(fd, bytes), BATCH_BYTES, BATCH_MS);
  process.on('exit', () => batch.flush());
  return batch;
}

let ownStdout: number | undefined;

/**
 * Where the logs write: stdout, or when stdout is a pipe (a container's log, `| tee`), a
 * description of that pipe of this process's own, blocking (opened once). Node makes a pipe on
 * stdout non-blocking in every process that shares it (the flag is the description's), so a write
 * to a full pipe fails with EAGAIN. A blocking write waits only until the reader has made room.
 * Linux opens a pipe anew through /proc/self/fd; elsewhere, or when stdout is no pipe (a file never
 * fills; a socket, such as systemd's journal, cannot be opened anew), stdout itself, where
 * writeAllSync waits in short sleeps.
 */
export function stdoutFd(): number {
  ownStdout ??= openOwnStdout();
  return ownStdout;
}

function openOwnStdout(): number {
  try {
    if (!fs.fstatSync(1).isFIFO()) return 1;
    // Non-blocking first: with no reader left, a blocking open would wait for one for ever.
    fs.closeSync(fs.openSync('/proc/self/fd/1', fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
    return fs.openSync('/proc/self/fd/1', fs.constants.O_WRONLY);
  } catch {
    return 1;
  }
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number) => void Atomics.wait(SLEEPER, 0, 0, ms);
/** How long a write that would block waits before it tries again. */
export const WRITE_WAIT_MS = 1;

/**
 * Writes all of `bytes` to `fd` before it returns, a partial write followed by the rest. While the
 * descriptor is non-blocking and full (EAGAIN: a socket or pipe on stdout whose reader is behind),
 * it sleeps WRITE_WAIT_MS and tries again: the process waits about as long as the reader takes to
 * make room, and loses no line. sonic-boom, pino's destination, slept 100 ms each time, holding
 * every call of the process. Behind a socket read at 1.6 MB/s, p99 105 ms; waits of at most 8 ms
 * gave 50 ms, of 2 ms 32 ms, of 1 ms 23-28 ms, at the same throughput, the reader's (docs/performance.md,
 * thirtieth pass). Any other error is thrown.
 */
export function writeAllSync(fd: number, bytes: Uint8Array, wait: (ms: number) => void = sleep): void {
  let done = 0;
  while (done < bytes.length) {
    try {
      done += fs.writeSync(fd, bytes, done);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' && code !== 'EBUSY') throw e;
      wait(WRITE_WAIT_MS);
    }
  }
}

/**
 * Lines gathered while together they fit in `maxBytes` bytes of UTF-8, then handed to `out` as
 * those bytes, in order: a line that would not fit sends what waits first (a line longer than
 * `maxBytes` goes alone). What waits is also handed on every `everyMs` and by flush(). Each line is
 * encoded once, straight into the batch's bytes: joining the lines and encoding the joined text
 * copied and scanned every line three more times (docs/performance.md, issue 18, twenty-first pass).
 */
export class LineBatch implements LineSink {
  private bytes: Buffer;
  private used = 0;

  constructor(private readonly out: (bytes: Buffer) => void, private readonly maxBytes: number, everyMs: number) {
    this.bytes = Buffer.allocUnsafe(maxBytes);
    setInterval(() => this.flush(), everyMs).unref();
  }

  write(line: string): void {
    const room = this.maxBytes - this.used;
    // A UTF-16 unit is at most 3 bytes of UTF-8: a line of at most a third of the room fits unmeasured.
    if (line.length * 3 > room) {
      const length = Buffer.byteLength(line);
      if (length > room) {
        this.flush();
        if (length > this.maxBytes) return this.out(Buffer.from(line));
      }
    }
    this.used += this.bytes.write(line, this.used);
    if (this.used === this.maxBytes) this.flush();
  }

  flush(): void {
    if (this.used === 0) return;
    const batch = this.bytes.subarray(0, this.used);
    // A new buffer for the next batch: `out` may keep this one.
    this.bytes = Buffer.allocUnsafe(this.maxBytes);
    this.used = 0;
    this.out(batch);
  }
}

/**
 * The time as pino's isoTime writes it (ISO 8601, UTC), made once per millisecond: at thousands
 * of requests a second a worker made the same Date and ISO string for several lines in a row.
 */
export function isoTimeOfMs(now: () => number = Date.now): () => string {
  let at = -1;
  let text = '';
  return () => {
    const ms = now();
    if (ms !== at) {
      at = ms;
      text = new Date(ms).toISOString();
    }
    return text;
  };
}
