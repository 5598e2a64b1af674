import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({ level, base: { svc: 'svapi', pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}
