import pino from 'pino';

export type Logger = pino.Logger;

/** What every line of the service carries besides its own fields (pino's `base`). */
export const LOG_BASE = { svc: 'svapi', pid: process.pid } as const;

/** The service's logger: JSON lines on stdout, or on `destination`. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, base: LOG_BASE, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(options, destination) : pino(options);
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
 * which took about an eighth of the CPU of a cached answer. Each batch is written synchronously,
 * so none is ever half-way in the thread pool, and whatever waits is written at exit; a SIGKILL
 * can lose the last 100 ms. Other lines keep the plain logger (one write each, in order with the
 * start-up lines).
 *
 * The lines wait in a LineBatch, not in sonic-boom's own buffer (its minLength): sonic-boom
 * measures the UTF-8 length of its whole waiting buffer on every write, which flattened and
 * scanned up to 4 KB a request, and writes more than PIPE_BUF at once. The batch hands it one
 * joined string, which it writes at once, retrying a partial write as before.
 */
export function createAccessLog(level: string): LineSink | undefined {
  if ((pino.levels.values[level] ?? Infinity) > pino.levels.values.info) return undefined;
  const stdout = pino.destination({ dest: 1, sync: true, minLength: 0 });
  const batch = new LineBatch((text) => stdout.write(text), BATCH_BYTES, BATCH_MS);
  process.on('exit', () => batch.flush());
  return batch;
}

/**
 * Lines gathered while together they fit in `maxBytes` bytes of UTF-8, then handed to `out`
 * joined in one string, in order: a line that would not fit sends what waits first (a line longer
 * than `maxBytes` goes alone). What waits is also handed on every `everyMs` and by flush().
 */
export class LineBatch implements LineSink {
  private lines: string[] = [];
  private bytes = 0;

  constructor(private readonly out: (text: string) => void, private readonly maxBytes: number, everyMs: number) {
    setInterval(() => this.flush(), everyMs).unref();
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.bytes + bytes > this.maxBytes) this.flush();
    this.lines.push(line);
    this.bytes += bytes;
    if (this.bytes >= this.maxBytes) this.flush();
  }

  flush(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.bytes = 0;
    this.out(text);
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
