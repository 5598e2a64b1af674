// ServiceError (src/errors.ts): an error the caller caused carries no stack (it is answered,
// never logged with one, and capturing it was most of its cost); the service's own keep theirs,
// and every other error in the process still gets its frames.
import { errors, ServiceError } from '../src/errors';

const frames = (e: Error) => (e.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).length;

test('the caller\'s faults have no stack frames; the service\'s own have them', () => {
  for (const e of [errors.auth(), errors.rateLimited(3), errors.missing('DevID'), errors.foreignNamespace('GetMonster', 'http://tempuri.org/', 'SVAPI'), errors.versionMismatch()]) {
    expect({ code: e.code, frames: frames(e) }).toEqual({ code: e.code, frames: 0 });
    expect(e.message.length).toBeGreaterThan(0);
  }
  for (const e of [errors.internal(), errors.unavailable(), new ServiceError('InternalError', 'x')]) {
    expect(frames(e)).toBeGreaterThan(0);
  }
});

test('the stack trace limit is left as it was', () => {
  const before = Error.stackTraceLimit;
  Error.stackTraceLimit = 17;
  try {
    errors.badRequest('no');
    expect(Error.stackTraceLimit).toBe(17);
    expect(frames(new Error('elsewhere'))).toBeGreaterThan(0);
  } finally {
    Error.stackTraceLimit = before;
  }
});
