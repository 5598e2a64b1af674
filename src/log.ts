import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({ level, base: { svc: 'svapi' }, timestamp: pino.stdTimeFunctions.isoTime });
}
