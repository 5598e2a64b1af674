// The access log's line (src/http/access-log.ts accessLine) is, byte for byte, the line pino
// writes for the same fields through the service's logger (createLogger): a log collector sees no
// difference between the two, whatever the path holds.

import { accessLine, durationText, type AccessFields } from '../src/http/access-log';
import { createLogger } from '../src/log';

const TIME = /"time":"([^"]+)"/;

function pinoLine(fields: AccessFields): string {
  let line = '';
  createLogger('info', { write: (text: string) => void (line += text) }).info({ ...fields }, 'request');
  return line;
}

const base: AccessFields = {
  requestId: '0b6f4f7e-2d1c-4c55-9a43-2f1f0d3c8e11',
  endpoint: '/API/hunting.asmx/GetMonster',
  operation: 'GetMonster',
  binding: 'http-get',
  outcome: 'OK',
  status: 200,
  durationMs: 0.013,
  devId: 3,
};

// Request paths as the HTTP parser gives them: every character one byte of the request line.
const latin1 = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)).join('');
const cases: [string, Partial<AccessFields>][] = [
  ['a cached call', {}],
  ['no operation, no DevID, an error outcome', { operation: undefined, devId: undefined, outcome: 'HTTP404', status: 404, binding: 'other' }],
  ['no request id', { requestId: undefined }],
  ['a path with quotes, backslashes and control characters', { endpoint: '/a"b\\c\u0001d\te\nf\u001f"' }],
  ['a path with control characters only', { endpoint: '/a\tb\u0000c\u007f' }],
  ['a path of every Latin-1 character', { endpoint: latin1 }],
  ['a long path, cut as the access log cuts it', { endpoint: `/${'x'.repeat(199)}...` }],
  ['an incoming request id with dots and dashes', { requestId: 'client.id-42_x' }],
  ['a whole-millisecond duration', { durationMs: 12 }],
  ['a short path beyond ASCII', { endpoint: '/API/Ñandú©/\u00ff' }],
  ['a zero duration, a refusal', { durationMs: 0, outcome: 'ServiceUnavailable', status: 503 }],
  ['a duration of tenths', { durationMs: 1.5 }],
  ['a duration of hundredths', { durationMs: 0.05 }],
  ['a duration with a zero after the point', { durationMs: 2.005 }],
  ['a long call', { durationMs: 12345.678 }],
];

test.each(cases)('the same bytes as pino: %s', (_name, change) => {
  const fields = { ...base, ...change };
  const expected = pinoLine(fields);
  const time = TIME.exec(expected)![1];
  expect(accessLine(time, fields)).toBe(expected);
  expect(JSON.parse(accessLine(time, fields))).toEqual(JSON.parse(expected));
});

test('a duration is written as JSON writes it, for any duration rounded to the microsecond', () => {
  const rounded = (ms: number) => Math.round(ms * 1000) / 1000;
  const samples = [0, 0.001, 0.01, 0.1, 0.999, 1, 9.99, 10.01, 100.1, 2 ** 31, 1e9 + 0.007, 1e12 - 0.001, -0.001, -0, NaN, Infinity];
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 20_000; i++) samples.push(random() * 10 ** Math.floor(random() * 7));
  for (const ms of samples) expect([ms, durationText(rounded(ms))]).toEqual([ms, String(rounded(ms))]);
});
