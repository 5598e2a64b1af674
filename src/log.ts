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

/** A batch is written once this many characters of lines wait (about 4 KB), or after BATCH_MS. */
const BATCH_CHARS = 4096;
const BATCH_MS = 100;

/**
 * The access log of `svapi serve` (none when `level` leaves out info): its lines on stdout,
 * written in batches (when 4 KB are waiting, and at least every 100 ms) instead of one write(2)
 * per request, which took about an eighth of the CPU of a cached answer. Each batch is written
 * synchronously, so none is ever half-way in the thread pool, and whatever waits is written at
 * exit; a SIGKILL can lose the last 100 ms. Other lines keep the plain logger (one write each, in
 * order with the start-up lines).
 *
 * The lines wait in a LineBatch, not in sonic-boom's own buffer (its minLength): sonic-boom
 * measures the UTF-8 length of its whole waiting buffer on every write, which flattened and
 * scanned up to 4 KB a request. The batch hands it one joined string, which it writes at once,
 * retrying a partial write as before.
 */
export function createAccessLog(level: string): LineSink | undefined {
  if ((pino.levels.values[level] ?? Infinity) > pino.levels.values.info) return undefined;
  const stdout = pino.destination({ dest: 1, sync: true, minLength: 0 });
  const batch = new LineBatch((text) => stdout.write(text), BATCH_CHARS, BATCH_MS);
  process.on('exit', () => batch.flush());
  return batch;
}

/**
 * Lines gathered until `minChars` characters wait (counted in UTF-16 units: a threshold, not a
 * size), then handed to `out` joined in one string, in order; what waits is also handed on every
 * `everyMs` and by flush().
 */
export class LineBatch implements LineSink {
  private lines: string[] = [];
  private chars = 0;

  constructor(private readonly out: (text: string) => void, private readonly minChars: number, everyMs: number) {
    setInterval(() => this.flush(), everyMs).unref();
  }

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= this.minChars) this.flush();
  }

  flush(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.chars = 0;
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
