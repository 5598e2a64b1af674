import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({ level, base: { svc: 'svapi', pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}

/**
 * The access log of `svapi serve`: the same lines on stdout, written in batches (when 4 KB are
 * waiting, and at least every 100 ms) instead of one write(2) per request, which took about an
 * eighth of the CPU of a cached answer. Each batch is written synchronously, so none is ever
 * half-way in the thread pool, and whatever waits is written at exit; a SIGKILL can lose the last
 * 100 ms. Other lines keep the plain logger (one write each, in order with the start-up lines).
 */
export function createAccessLogger(level: string): Logger {
  const stdout = pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 100 });
  process.on('exit', () => stdout.flushSync());
  return pino({ level, base: { svc: 'svapi', pid: process.pid }, timestamp: isoTimeOfMs() }, stdout);
}

/**
 * pino's isoTime, made once per millisecond: at thousands of requests a second a worker made the
 * same Date and ISO string for several lines in a row.
 */
export function isoTimeOfMs(now: () => number = Date.now): () => string {
  let at = -1;
  let text = '';
  return () => {
    const ms = now();
    if (ms !== at) {
      at = ms;
      text = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return text;
  };
}
