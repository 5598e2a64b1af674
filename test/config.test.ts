import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, loadDatabaseConfig, ConfigError, configReference, DATABASE_SETTINGS } from '../src/config';

test('defaults are those of CONTRACT', () => {
  const c = loadConfig({});
  expect(c).toMatchObject({
    HOST: '0.0.0.0', PORT: 8080, SVAPI_NAMESPACE: 'SVAPI', SVAPI_TRUST_PROXY: false, SVAPI_MAX_RESULTS: 1000,
    SVAPI_MAX_GLOBALS: 1000, SVAPI_LANDAREA_GLOBALS: 100, SVAPI_RATE_LIMIT: 600, SVAPI_AUTH_FAIL_LIMIT: 30,
    SVAPI_DB_TIMEOUT_MS: 5000, SVAPI_MAX_BODY: 65536, SVAPI_CLUSTER_SCHEDULING: 'adaptive',
  });
  expect(c.DATABASE_URL).toBeUndefined();
});

test('a bad value names the variable and what is allowed', () => {
  expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
  const message = (env: NodeJS.ProcessEnv) => {
    try {
      loadConfig(env);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('no error');
  };
  expect(message({ PORT: 'eighty' })).toBe('PORT: "eighty" is not an integer from 0 to 65535 (port to listen on)');
  expect(message({ SVAPI_DB_POOL_MAX: '0' })).toBe('SVAPI_DB_POOL_MAX: "0" is not an integer from 1 to 1000 (database connections per process; serve with the database on this host: cores x 2 + 1 among its workers, 2 to 10 each)');
  expect(message({ SVAPI_MAX_BODY: '1.5' })).toBe('SVAPI_MAX_BODY: "1.5" is not an integer of at least 1 (largest request body in bytes (after inflation))');
  expect(message({ SVAPI_TRUST_PROXY: 'maybe' })).toBe('SVAPI_TRUST_PROXY: "maybe" is not true or false (or 1/0, yes/no, on/off) (honour X-Forwarded-Proto/Host/For from one proxy in front)');
  expect(message({ LOG_LEVEL: 'loud' })).toBe('LOG_LEVEL: "loud" is not one of fatal, error, warn, info, debug, trace, silent (log level)');
  expect(message({ SVAPI_CLUSTER_SCHEDULING: 'random' })).toMatch(/^SVAPI_CLUSTER_SCHEDULING: "random" is not adaptive, pack, none or rr \(/);
  expect(loadConfig({ SVAPI_CLUSTER_SCHEDULING: 'rr' }).SVAPI_CLUSTER_SCHEDULING).toBe('rr');
  expect(message({ SVAPI_KEY_CACHE_MS: '60000' })).toMatch(/^SVAPI_KEY_CACHE_MS: "60000" is not an integer from 0 to 5000 /);
  // A URL may hold a password: its value is not repeated.
  expect(message({ DATABASE_URL: 'not a url' })).toBe('DATABASE_URL: the value is not a postgres:// or postgresql:// URL (Postgres URL; unset = embedded PGlite database)');
  expect(message({ DATABASE_URL: 'db.example.net:5432' })).toMatch(/^DATABASE_URL: the value is not a postgres:\/\//);
  expect(message({ SVAPI_REDIS_URL: 'localhost:6379' })).toMatch(/^SVAPI_REDIS_URL: the value is not a redis:\/\/ or rediss:\/\/ URL \(/);
  // One line per bad variable.
  expect(message({ PORT: 'x', HOST: '' , SVAPI_RATE_LIMIT: '-1' }).split('\n').map((l) => l.split(':')[0])).toEqual(['PORT', 'SVAPI_RATE_LIMIT']);
  expect(loadConfig({ SVAPI_REDIS_URL: 'rediss://:secret@cache:6380/2' }).SVAPI_REDIS_URL).toBe('rediss://:secret@cache:6380/2');
});

test('values are parsed and empty means unset', () => {
  const c = loadConfig({ PORT: '9000', SVAPI_TRUST_PROXY: 'on', SVAPI_PUBLIC_URL: '', SVAPI_NAMESPACE: 'http://legacy.example/api' });
  expect(c.PORT).toBe(9000);
  expect(c.SVAPI_TRUST_PROXY).toBe(true);
  expect(c.SVAPI_PUBLIC_URL).toBeUndefined();
  expect(c.SVAPI_NAMESPACE).toBe('http://legacy.example/api');
});

test('every CONTRACT variable is documented with its default', () => {
  const names = configReference().map((v) => v.name);
  for (const v of ['DATABASE_URL', 'HOST', 'PORT', 'SVAPI_NAMESPACE', 'SVAPI_PUBLIC_URL', 'SVAPI_TRUST_PROXY', 'SVAPI_MAX_RESULTS',
    'SVAPI_MAX_GLOBALS', 'SVAPI_LANDAREA_GLOBALS', 'SVAPI_RATE_LIMIT', 'SVAPI_AUTH_FAIL_LIMIT', 'SVAPI_DB_TIMEOUT_MS', 'SVAPI_MAX_BODY']) {
    expect(names).toContain(v);
  }
});

test('the README documents every variable with its default', () => {
  const readme = fs.readFileSync(path.join(__dirname, '../README.md'), 'utf8');
  for (const v of configReference()) {
    const row = readme.split('\n').find((l) => l.startsWith(`| \`${v.name}\` |`));
    expect([v.name, row]).toEqual([v.name, expect.stringContaining(v.default === '(unset)' ? '(unset)' : `\`${v.default}\``)]);
  }
});

test('the database settings are checked on their own, and the README names exactly those', () => {
  expect(loadDatabaseConfig({ PORT: 'eighty', SVAPI_MAX_BODY: 'big', DATABASE_URL: 'postgres://h/db' })).toEqual({
    DATABASE_URL: 'postgres://h/db', SVAPI_DATA_DIR: '.svapi-data', SVAPI_DB_TIMEOUT_MS: 5000, SVAPI_DB_POOL_MAX: 10,
    SVAPI_DB_NAMED_STATEMENTS: true, LOG_LEVEL: 'info',
  });
  expect(() => loadDatabaseConfig({ SVAPI_DB_POOL_MAX: '0' })).toThrow(/SVAPI_DB_POOL_MAX: .*database connections per process/);
  const readme = fs.readFileSync(path.join(__dirname, '../README.md'), 'utf8');
  const sentence = /read and check only ([^.]+)\./.exec(readme.replace(/\s+/g, ' '))![1];
  expect([...sentence.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort()).toEqual([...DATABASE_SETTINGS].sort());
});
