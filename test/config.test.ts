import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, loadDatabaseConfig, ConfigError, configReference, DATABASE_SETTINGS } from '../src/config';

test('defaults are those of CONTRACT', () => {
  const c = loadConfig({});
  expect(c).toMatchObject({
    HOST: '0.0.0.0', PORT: 8080, SVAPI_NAMESPACE: 'SVAPI', SVAPI_TRUST_PROXY: false, SVAPI_MAX_RESULTS: 1000,
    SVAPI_MAX_GLOBALS: 1000, SVAPI_LANDAREA_GLOBALS: 100, SVAPI_RATE_LIMIT: 600, SVAPI_AUTH_FAIL_LIMIT: 30,
    SVAPI_DB_TIMEOUT_MS: 5000, SVAPI_MAX_BODY: 65536,
  });
  expect(c.DATABASE_URL).toBeUndefined();
});

test('a bad value names the variable and what is allowed', () => {
  expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
  expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT: .*port to listen on/);
  expect(() => loadConfig({ SVAPI_TRUST_PROXY: 'maybe' })).toThrow(/SVAPI_TRUST_PROXY: .*"true"/);
  expect(() => loadConfig({ SVAPI_KEY_CACHE_MS: '60000' })).toThrow(/SVAPI_KEY_CACHE_MS/);
  expect(() => loadConfig({ DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
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
