import { Writable } from 'node:stream';
import pino from 'pino';
import type { LineSink, Logger } from '../../src/log';

/**
 * A pino logger at `info` and an access log (`access`) whose lines are parsed into `lines` as they
 * are written (synchronously), in the order written.
 */
export function capturedLogger(): { logger: Logger; access: LineSink; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const parse = (text: string) => {
    for (const line of text.split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
  };
  const sink = new Writable({
    write(chunk, _enc, done) {
      parse(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), access: { write: parse }, lines };
}
