// The access log's timestamp (src/log.ts isoTimeOfMs) is the text of pino's isoTime, made once per millisecond.

import pino from 'pino';
import { isoTimeOfMs } from '../src/log';

test('the same text as pino isoTime at every millisecond, a new one when the millisecond changes', () => {
  let ms = Date.UTC(2026, 10, 24, 8, 59, 59, 998);
  const time = isoTimeOfMs(() => ms);
  const realNow = Date.now;
  try {
    for (let i = 0; i < 5; i++) {
      Date.now = () => ms;
      expect(`,"time":"${time()}"`).toBe(pino.stdTimeFunctions.isoTime());
      expect(time()).toBe(new Date(ms).toISOString());
      ms += i % 2; // the same millisecond twice, then the next
    }
  } finally {
    Date.now = realNow;
  }
  expect(time()).toBe('2026-11-24T09:00:00.000Z');
});
