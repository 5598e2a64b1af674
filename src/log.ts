import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({ level, base: { svc: 'svapi', pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}

/**
 * The access log of `svapi serve`: the same lines on stdout, written in batches (when 4 KB are
 * waiting, and at least every 100 ms) instead of one write(2) per request, which took about an
 * eighth of the CPU of a cached answer. Whatever is waiting is written at exit (pino flushes its
 * destinations then); a SIGKILL can lose the last 100 ms. Other lines keep the plain logger (one
 * write each, in order with the start-up lines).
 */
export function createAccessLogger(level: string): Logger {
  const stdout = pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 });
  return pino({ level, base: { svc: 'svapi', pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, stdout);
}
