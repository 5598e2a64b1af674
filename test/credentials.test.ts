// CONTRACT §6: credentials first, one AuthenticationFailed for every bad kind, a bounded cache
// that never outlives a revocation by more than 5 s.

import { startService, type TestService } from './support/service';
import { runCli } from './support/cli';
import { serveOver } from './support/serve';
import { BINDINGS, call, callerFault, readError, readResult, WEAPONS, HUNTING, type Answer, type BindingName } from './support/bindings';
import { until } from './support/wait';
import { createKey, revokeKey } from '../src/auth/keys';
import { CredentialChecker, KEY_CACHE_ENTRIES } from '../src/auth/credentials';
import { createKnex } from '../src/db/connect';
import { endReadPool } from '../src/db/read-pool';
import { onRead } from '../src/db/queries/statements';
import { loadConfig } from '../src/config';
import { AUTH_FAILED_MESSAGE, ServiceError } from '../src/errors';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

const good = () => ({ DevID: String(svc.key.devId), DevKey: svc.key.devKey });

async function expectAuthFailed(binding: BindingName, params: Record<string, string | undefined>, op = 'GetWeapons', path = WEAPONS) {
  const answer = await call(svc.url, binding, path, op, params);
  const want = callerFault(binding, 403);
  expect({ binding, status: answer.status }).toEqual({ binding, status: want.status });
  const error = readError(answer.body);
  expect(error).toEqual({ faultCode: want.faultCode, code: 'AuthenticationFailed', message: AUTH_FAILED_MESSAGE, parameter: undefined });
  return answer.body;
}

describe.each(BINDINGS)('%s', (binding) => {
  test('a valid pair is served', async () => {
    const answer = await call(svc.url, binding, WEAPONS, 'GetWeapons', { ...good(), SearchWord: '' });
    expect(answer.status).toBe(200);
    expect(readResult(answer.body).children.length).toBeGreaterThan(0);
  });

  test('every kind of bad credential gets the same AuthenticationFailed, before parameters are looked at', async () => {
    const revoked = await createKey(svc.db.knex, 'revoked');
    await revokeKey(svc.db.knex, revoked.devId);
    const other = await createKey(svc.db.knex, 'other');
    const kinds: Record<string, Record<string, string | undefined>> = {
      'no DevID': { DevKey: svc.key.devKey },
      'no DevKey': { DevID: String(svc.key.devId) },
      'neither': {},
      'empty DevKey': { DevID: String(svc.key.devId), DevKey: '' },
      'empty DevID': { DevID: '', DevKey: svc.key.devKey },
      'DevID not an int': { DevID: 'abc', DevKey: svc.key.devKey },
      'DevID out of range': { DevID: '2147483648', DevKey: svc.key.devKey },
      'unknown DevID': { DevID: '987654', DevKey: svc.key.devKey },
      'wrong DevKey': { DevID: String(svc.key.devId), DevKey: other.devKey },
      'DevKey with a space': { DevID: String(svc.key.devId), DevKey: `${svc.key.devKey} ` },
      'another DevID with this key': { DevID: String(other.devId), DevKey: svc.key.devKey },
      'revoked': { DevID: String(revoked.devId), DevKey: revoked.devKey },
    };
    const bodies = new Set<string>();
    for (const params of Object.values(kinds)) {
      // An invalid parameter too: credentials are checked before anything else.
      bodies.add(await expectAuthFailed(binding, { ...params, MonsterID: 'not a number' }, 'GetMonster', HUNTING));
    }
    // One answer for all: nothing tells which half was wrong.
    expect(bodies.size).toBe(1);
  });
});

test('a DevID given twice is AuthenticationFailed over HTTP GET', async () => {
  const answer = await fetch(`${svc.url}${WEAPONS}/GetWeapons?DevID=${svc.key.devId}&DevID=${svc.key.devId}&DevKey=${encodeURIComponent(svc.key.devKey)}`);
  expect(answer.status).toBe(403);
  expect(readError(await answer.text()).code).toBe('AuthenticationFailed');
});

test('the key cache is at most 5 s by default and by configuration', () => {
  expect(loadConfig({}).SVAPI_KEY_CACHE_MS).toBeLessThanOrEqual(5000);
  expect(() => loadConfig({ SVAPI_KEY_CACHE_MS: '5001' })).toThrow(/SVAPI_KEY_CACHE_MS/);
  expect(KEY_CACHE_ENTRIES).toBeLessThanOrEqual(100_000);
});

test('a key revoked with the CLI is refused within 5 s while the service runs (default cache)', async () => {
  const key = await createKey(svc.db.knex, 'to revoke by CLI');
  const params = { DevID: String(key.devId), DevKey: key.devKey, SearchWord: 'a' };
  // Warm the cache on every binding.
  for (const binding of BINDINGS) expect((await call(svc.url, binding, WEAPONS, 'GetWeapons', params)).status).toBe(200);
  const revoked = await runCli(['keys', 'revoke', String(key.devId)], { DATABASE_URL: svc.db.url });
  expect(revoked.code).toBe(0);
  const since = Date.now();
  for (const binding of BINDINGS) {
    let answer: Answer | undefined;
    await until(`${binding} refuses the revoked key`, async () => (answer = await call(svc.url, binding, WEAPONS, 'GetWeapons', params)).status !== 200, 5000);
    expect(readError(answer!.body).code).toBe('AuthenticationFailed');
  }
  expect(Date.now() - since).toBeLessThan(5000);
});

describe('the credential cache', () => {
  const settings = { SVAPI_KEY_CACHE_MS: 300, SVAPI_RATE_LIMIT: 1_000_000, SVAPI_AUTH_FAIL_LIMIT: 1_000_000 };
  let knex: ReturnType<typeof createKnex>;
  let queries: number;
  beforeAll(() => {
    knex = createKnex(svc.db.url, 'service', svc.config, svc.db.embedded);
    onRead(knex, () => void queries++);
  });
  afterAll(async () => {
    await endReadPool(knex);
    await knex.destroy();
  });
  beforeEach(() => {
    queries = 0;
  });

  test('a valid pair is a database query once per TTL, not per request', async () => {
    const checker = new CredentialChecker(knex, settings);
    for (let i = 0; i < 20; i++) await checker.check(svc.key.devId, svc.key.devKey, '10.0.0.1');
    expect(queries).toBe(1);
  });

  test('calls at once for a DevID not cached read its key once (not a query each behind the operations)', async () => {
    const checker = new CredentialChecker(knex, settings);
    await Promise.all(Array.from({ length: 50 }, () => checker.check(svc.key.devId, svc.key.devKey, '10.0.0.1')));
    expect(queries).toBe(1);
  });

  test('a wrong key is never accepted from the cache, whatever it is', async () => {
    const checker = new CredentialChecker(knex, settings);
    await checker.check(svc.key.devId, svc.key.devKey, '10.0.0.1');
    const k = svc.key.devKey;
    // Same length as the key that matched last, differing in the last or the first character.
    const flipped = [`${k.slice(0, -1)}${k.endsWith('A') ? 'B' : 'A'}`, `${k.startsWith('A') ? 'B' : 'A'}${k.slice(1)}`];
    for (const wrong of ['', 'x', k.slice(1), `${k}x`, k.toUpperCase(), ...flipped]) {
      await expect(checker.check(svc.key.devId, wrong, '10.0.0.1')).rejects.toMatchObject({ code: 'AuthenticationFailed' });
    }
    await checker.check(svc.key.devId, svc.key.devKey, '10.0.0.1');
  });

  test('unknown and revoked DevIDs are not cached', async () => {
    const checker = new CredentialChecker(knex, settings);
    for (let i = 0; i < 3; i++) await expect(checker.check(424242, svc.key.devKey, '10.0.0.1')).rejects.toBeInstanceOf(ServiceError);
    expect(queries).toBe(3);
  });

  test('a revocation holds once the TTL has passed', async () => {
    const key = await createKey(svc.db.knex, 'to revoke in the database');
    const checker = new CredentialChecker(knex, settings);
    await checker.check(key.devId, key.devKey, '10.0.0.1');
    await revokeKey(svc.db.knex, key.devId);
    const refused = () => checker.check(key.devId, key.devKey, '10.0.0.1').then(() => false, () => true);
    // The bound leaves a loaded machine time for the checks themselves.
    await until('the checker refuses the revoked key', refused, settings.SVAPI_KEY_CACHE_MS + 1000);
    await expect(checker.check(key.devId, key.devKey, '10.0.0.1')).rejects.toMatchObject({ code: 'AuthenticationFailed' });
  });

  test('concurrent checks of a DevID not in the cache read it from the database once', async () => {
    const checker = new CredentialChecker(knex, settings);
    await Promise.all(Array.from({ length: 20 }, () => checker.check(svc.key.devId, svc.key.devKey, '10.0.0.1')));
    expect(queries).toBe(1);
  });

  test('a key in use is read again before its entry expires (no request waits for it), and a revocation still holds', async () => {
    const ttl = { ...settings, SVAPI_KEY_CACHE_MS: 1000 };
    const key = await createKey(svc.db.knex, 'in use');
    const checker = new CredentialChecker(knex, ttl);
    // A check that reads the database on its way is not settled by the next turn of the event loop.
    let waited = 0;
    const serve = async () => {
      // The outcome is taken at once: a refusal settled before the next turn is not left unhandled.
      let outcome: { error?: unknown } | undefined;
      const checking = checker.check(key.devId, key.devKey, '10.0.0.1').then(() => {
        outcome = {};
      }, (error: unknown) => {
        outcome = { error };
      });
      await new Promise((r) => setImmediate(r));
      if (!outcome) waited++;
      await checking;
      if (outcome!.error) throw outcome!.error;
    };
    await serve();
    queries = 0;
    waited = 0;
    const end = Date.now() + 2_500;
    while (Date.now() < end) {
      await serve();
      await new Promise((r) => setTimeout(r, 20));
    }
    // Two entries' lives: each read again before it expires, none left to expire under the requests.
    expect(waited).toBe(0);
    expect(queries).toBeGreaterThanOrEqual(2);
    await revokeKey(svc.db.knex, key.devId);
    const refused = () => serve().then(() => false, () => true);
    await until('the checker refuses the revoked key', refused, ttl.SVAPI_KEY_CACHE_MS + 1000);
  });

  test('an address is blocked after SVAPI_AUTH_FAIL_LIMIT failures, not before: a correct key passes after the last allowed one', async () => {
    const checker = new CredentialChecker(knex, { ...settings, SVAPI_AUTH_FAIL_LIMIT: 3 });
    const check = (key: string) => checker.check(svc.key.devId, key, '10.0.0.9').then(() => 'OK', (e: { code?: string }) => e.code);
    for (let i = 0; i < 3; i++) expect(await check('wrong')).toBe('AuthenticationFailed');
    expect(await check(svc.key.devKey)).toBe('OK');
    expect(await check('wrong')).toBe('RateLimited');
    expect(await check(svc.key.devKey)).toBe('RateLimited');
  });

  test('a blocked address stays blocked while 100,000 other addresses fail after it', async () => {
    const checker = new CredentialChecker(knex, { ...settings, SVAPI_AUTH_FAIL_LIMIT: 1 });
    const check = (address: string) => checker.check(svc.key.devId, svc.key.devKey, address).then(() => 'OK', (e: { code?: string }) => e.code);
    expect(await check('10.1.0.1')).toBe('OK'); // the key's hash is cached: the failures below ask no database
    await checker.fail('10.1.0.1');
    await expect(checker.fail('10.1.0.1')).rejects.toMatchObject({ code: 'RateLimited' });
    for (let i = 0; i < 100_000; i++) await checker.fail(`fd00::${i.toString(16)}`);
    expect(await check('10.1.0.1')).toBe('RateLimited');
  });

  test('checkNow decides at once only for the pair that matched last, from an address with no failure, and asks no database', async () => {
    const checker = new CredentialChecker(knex, { ...settings, SVAPI_RATE_LIMIT: 4 });
    const { devId, devKey } = svc.key;
    expect(checker.checkNow(devId, devKey, '10.2.0.1')).toBeUndefined();
    expect(queries).toBe(0);
    await checker.check(devId, devKey, '10.2.0.1');
    expect(checker.checkNow(devId, devKey, '10.2.0.1')).toBe(true);
    expect(checker.checkNow(devId, `${devKey.slice(0, -1)}${devKey.endsWith('A') ? 'B' : 'A'}`, '10.2.0.1')).toBeUndefined();
    await expect(checker.check(devId, 'wrong', '10.2.0.2')).rejects.toMatchObject({ code: 'AuthenticationFailed' });
    expect(checker.checkNow(devId, devKey, '10.2.0.2')).toBeUndefined();
    // Two points used (check, checkNow) of 4: a third and fourth pass, the fifth is refused at once.
    expect(checker.checkNow(devId, devKey, '10.2.0.1')).toBe(true);
    expect(checker.checkNow(devId, devKey, '10.2.0.1')).toBe(true);
    expect(() => checker.checkNow(devId, devKey, '10.2.0.1')).toThrow(expect.objectContaining({ code: 'RateLimited' }));
    expect(queries).toBe(1);
  });

  test('SVAPI_KEY_CACHE_MS=0 turns the cache off', async () => {
    const checker = new CredentialChecker(knex, { ...settings, SVAPI_KEY_CACHE_MS: 0 });
    for (let i = 0; i < 3; i++) await checker.check(svc.key.devId, svc.key.devKey, '10.0.0.1');
    expect(queries).toBe(3);
  });
});

test('the service with a small cache refuses a key revoked in the database within that time', async () => {
  const small = await serveOver(svc.db, { SVAPI_KEY_CACHE_MS: '200' });
  try {
    const key = await createKey(svc.db.knex, 'to revoke under a small cache');
    const params = { DevID: String(key.devId), DevKey: key.devKey, SearchWord: 'a' };
    for (const binding of BINDINGS) expect((await call(small.url, binding, WEAPONS, 'GetWeapons', params)).status).toBe(200);
    await revokeKey(svc.db.knex, key.devId);
    await until('the revoked key is refused', async () => (await call(small.url, 'get', WEAPONS, 'GetWeapons', params)).status !== 200, 200 + 1000);
    for (const binding of BINDINGS) {
      const answer = await call(small.url, binding, WEAPONS, 'GetWeapons', params);
      expect({ binding, status: answer.status }).toEqual({ binding, status: callerFault(binding, 403).status });
      expect(readError(answer.body).code).toBe('AuthenticationFailed');
    }
  } finally {
    await small.close();
  }
});
