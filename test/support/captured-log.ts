import { Writable } from 'node:stream';
import pino from 'pino';
import type { Logger } from '../../src/log';

/** A pino logger at `info` whose lines are parsed into `lines` as they are written (synchronously). */
export function capturedLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}
