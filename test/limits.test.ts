// CONTRACT §6 and §8: the per-DevID rate limit, the throttle on failed credentials per address,
// the statement time-out and the read-only service connections.

import { startService, type TestService } from './support/service';
import { serveOver, type ServedApp } from './support/serve';
import { BINDINGS, call, callerFault, readError, WEAPONS, type BindingName } from './support/bindings';
import { createKey } from '../src/auth/keys';
import { CredentialChecker } from '../src/auth/credentials';
import { createKnex } from '../src/db/connect';
import { loadConfig } from '../src/config';
import { toServiceError, statusFor, faultCodeFor, ServiceError } from '../src/errors';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

function expectRateLimited(binding: BindingName, answer: { status: number; headers: Headers; body: string }) {
  const want = callerFault(binding, 429);
  expect({ binding, status: answer.status }).toEqual({ binding, status: want.status });
  const error = readError(answer.body);
  expect(error).toMatchObject({ code: 'RateLimited', faultCode: want.faultCode });
  if (binding === 'get' || binding === 'post') {
    const retry = Number(answer.headers.get('retry-after'));
    expect(Number.isInteger(retry)).toBe(true);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  }
}

test('the defaults are those of CONTRACT', () => {
  const c = loadConfig({});
  expect(c.SVAPI_RATE_LIMIT).toBe(600);
  expect(c.SVAPI_AUTH_FAIL_LIMIT).toBe(30);
  expect(c.SVAPI_DB_TIMEOUT_MS).toBe(5000);
  expect(c.SVAPI_HEADERS_TIMEOUT_MS).toBeGreaterThan(0);
  expect(c.SVAPI_REQUEST_TIMEOUT_MS).toBeGreaterThanOrEqual(c.SVAPI_HEADERS_TIMEOUT_MS);
});

describe('per-DevID rate limit (SVAPI_RATE_LIMIT=5)', () => {
  let app: ServedApp;
  beforeAll(async () => {
    app = await serveOver(svc.db, { SVAPI_RATE_LIMIT: '5' });
  });
  afterAll(() => app.close());

  test.each(BINDINGS)('%s: the sixth request in a minute is RateLimited; other DevIDs are not', async (binding) => {
    const key = await createKey(svc.db.knex, `rate ${binding}`);
    const params = { DevID: String(key.devId), DevKey: key.devKey, SearchWord: 'a' };
    for (let i = 0; i < 5; i++) expect((await call(app.url, binding, WEAPONS, 'GetWeapons', params)).status).toBe(200);
    expectRateLimited(binding, await call(app.url, binding, WEAPONS, 'GetWeapons', params));
    expectRateLimited(binding, await call(app.url, binding, WEAPONS, 'GetWeapons', params));
    const other = await createKey(svc.db.knex, `other ${binding}`);
    expect((await call(app.url, binding, WEAPONS, 'GetWeapons', { ...params, DevID: String(other.devId), DevKey: other.devKey })).status).toBe(200);
  });

  test('the limit counts requests of a DevID across bindings', async () => {
    const key = await createKey(svc.db.knex, 'rate across');
    const params = { DevID: String(key.devId), DevKey: key.devKey, SearchWord: 'a' };
    for (const binding of [...BINDINGS, 'get'] as BindingName[]) {
      expect((await call(app.url, binding, WEAPONS, 'GetWeapons', params)).status).toBe(200);
    }
    for (const binding of BINDINGS) expectRateLimited(binding, await call(app.url, binding, WEAPONS, 'GetWeapons', params));
  });
});

describe('failed credentials per address (SVAPI_AUTH_FAIL_LIMIT=3)', () => {
  let app: ServedApp;
  beforeAll(async () => {
    // Behind a proxy, so each test can be its own client address (X-Forwarded-For).
    app = await serveOver(svc.db, { SVAPI_AUTH_FAIL_LIMIT: '3', SVAPI_TRUST_PROXY: 'on' });
  });
  afterAll(() => app.close());
  const from = (address: string) => ({ 'X-Forwarded-For': address });

  test.each(BINDINGS.map((b, i) => [b, i] as const))('%s: the fourth failure and everything after it in the window are RateLimited, a correct key too', async (binding, i) => {
    const address = `192.0.2.${10 + i}`;
    const good = { DevID: String(svc.key.devId), DevKey: svc.key.devKey, SearchWord: 'a' };
    const bad = { ...good, DevKey: 'wrong' };
    expect((await call(app.url, binding, WEAPONS, 'GetWeapons', good, from(address))).status).toBe(200);
    for (let n = 0; n < 3; n++) {
      const answer = await call(app.url, binding, WEAPONS, 'GetWeapons', n === 1 ? { SearchWord: 'a' } : bad, from(address));
      expect(readError(answer.body).code).toBe('AuthenticationFailed');
    }
    expectRateLimited(binding, await call(app.url, binding, WEAPONS, 'GetWeapons', bad, from(address)));
    expectRateLimited(binding, await call(app.url, binding, WEAPONS, 'GetWeapons', good, from(address)));
    // Another address is not affected.
    expect((await call(app.url, binding, WEAPONS, 'GetWeapons', good, from(`198.51.100.${i}`))).status).toBe(200);
  });

  test('failures count across bindings; the client address is the one the proxy saw', async () => {
    const address = '203.0.113.7';
    const bad = { DevID: String(svc.key.devId), DevKey: 'wrong' };
    for (const binding of ['soap11', 'soap12', 'get'] as BindingName[]) {
      expect(readError((await call(app.url, binding, WEAPONS, 'GetWeapons', bad, from(address))).body).code).toBe('AuthenticationFailed');
    }
    expectRateLimited('post', await call(app.url, 'post', WEAPONS, 'GetWeapons', bad, from(address)));
    // A forged first hop does not make a new client: only the last (the proxy's) entry counts.
    expectRateLimited('get', await call(app.url, 'get', WEAPONS, 'GetWeapons', bad, from(`10.9.9.9, ${address}`)));
  });
});

describe('the window ends', () => {
  afterEach(() => jest.useRealTimers());

  test('a blocked address and a limited DevID are served again after the minute', async () => {
    const knex = createKnex(svc.db.url, 'service', svc.config, svc.db.embedded);
    try {
      const checker = new CredentialChecker(knex, { SVAPI_KEY_CACHE_MS: 1000, SVAPI_RATE_LIMIT: 2, SVAPI_AUTH_FAIL_LIMIT: 1 });
      // Only Date is faked: the database driver keeps its real timers.
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'], now: Date.now() });
      const { devId, devKey } = svc.key;
      await checker.check(devId, devKey, 'a');
      await checker.check(devId, devKey, 'a');
      await expect(checker.check(devId, devKey, 'a')).rejects.toMatchObject({ code: 'RateLimited' });
      await expect(checker.check(devId, 'wrong', 'b')).rejects.toMatchObject({ code: 'AuthenticationFailed' });
      await expect(checker.check(devId, 'wrong', 'b')).rejects.toMatchObject({ code: 'RateLimited' });
      await expect(checker.fail('b')).rejects.toMatchObject({ code: 'RateLimited', headers: { 'Retry-After': '60' } });
      jest.setSystemTime(Date.now() + 30_000);
      await expect(checker.check(devId, devKey, 'b')).rejects.toMatchObject({ code: 'RateLimited', headers: { 'Retry-After': '30' } });
      jest.setSystemTime(Date.now() + 31_000);
      await checker.check(devId, devKey, 'b');
      await checker.check(devId, devKey, 'a');
    } finally {
      jest.useRealTimers();
      await knex.destroy();
    }
  });
});

describe('database statements', () => {
  test('a statement running past SVAPI_DB_TIMEOUT_MS is cancelled and becomes ServiceUnavailable', async () => {
    const config = loadConfig({ DATABASE_URL: svc.db.url, SVAPI_DB_TIMEOUT_MS: '200' });
    const knex = createKnex(svc.db.url, 'service', config, svc.db.embedded);
    try {
      const started = Date.now();
      const failure = await knex.raw('SELECT pg_sleep(5)').then(() => undefined, (e: unknown) => e);
      const took = Date.now() - started;
      expect(failure).toBeDefined();
      // A real server cancels it at 200 ms (57014); PGlite has no statement time-out, so there the
      // client-side bound (a second later) ends the wait. Either well before the 5 s sleep ends,
      // on a loaded machine too (on PGlite the sleep still holds its one session that long).
      expect(took).toBeLessThan(4000);
      if (!svc.db.embedded) expect(failure).toMatchObject({ code: '57014' });
      const mapped = toServiceError(failure);
      expect(mapped).toBeInstanceOf(ServiceError);
      expect(mapped.code).toBe('ServiceUnavailable');
      expect(statusFor(mapped, 'http')).toBe(503);
      expect(faultCodeFor(mapped, 'soap11')).toBe('Server');
      expect(faultCodeFor(mapped, 'soap12')).toBe('Receiver');
      // PGlite runs one statement at a time: this one answers once the sleep has finished.
      if (svc.db.embedded) await svc.db.knex.raw('SELECT 1');
    } finally {
      await knex.destroy();
    }
  });

  test('database failures map to ServiceUnavailable; anything else to InternalError', () => {
    const err = (message: string, props: Record<string, unknown> = {}) => Object.assign(new Error(message), props);
    for (const e of [
      err('canceling statement due to statement timeout', { code: '57014' }),
      err('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }),
      err('terminating connection due to administrator command', { code: '57P01' }),
      err('the database system is starting up', { code: '57P03' }),
      err('sorry, too many clients already', { code: '53300' }),
      err('Connection terminated unexpectedly'),
      err('Connection terminated due to connection timeout'),
      err('timeout expired'),
      err('Query read timeout'),
      err('Client has encountered a connection error and is not queryable'),
      err('Knex: Timeout acquiring a connection. The pool is probably full.', { name: 'KnexTimeoutError' }),
    ]) {
      expect({ message: e.message, code: toServiceError(e).code }).toEqual({ message: e.message, code: 'ServiceUnavailable' });
    }
    for (const e of [err('relation "weapons" does not exist', { code: '42P01' }), err('cannot execute INSERT in a read-only transaction', { code: '25006' }), new TypeError('x is undefined'), 'a string']) {
      expect(toServiceError(e).code).toBe('InternalError');
    }
  });

  test('the service connections are read-only on a real server', async () => {
    const knex = createKnex(svc.db.url, 'service', svc.config, svc.db.embedded);
    try {
      if (svc.db.embedded) {
        // PGlite is one session shared by every connection through a multiplexer: a session
        // setting would hold for the admin connections (loads, keys) too, so the embedded
        // database is not read-only at the session level. The service issues no writes.
        const setting = await knex.raw('SHOW default_transaction_read_only');
        expect(setting.rows[0].default_transaction_read_only).toBe('off');
        return;
      }
      const setting = await knex.raw('SHOW default_transaction_read_only');
      expect(setting.rows[0].default_transaction_read_only).toBe('on');
      await expect(knex('dev_keys').insert({ name: 'sneaky', key_hash: Buffer.alloc(32) })).rejects.toMatchObject({ code: '25006' });
      await expect(knex('weapons').del()).rejects.toMatchObject({ code: '25006' });
      await expect(knex.raw('CREATE TABLE sneaky (x int)')).rejects.toMatchObject({ code: '25006' });
      expect(Number((await svc.db.knex('weapons').count({ n: '*' }))[0].n)).toBeGreaterThan(0);
    } finally {
      await knex.destroy();
    }
  });
});
