// `npm run test:all` (and CI): every test file; on the embedded database (no DATABASE_URL) every
// one but those that need a Postgres server (test/end-to-end.js SERVER_ONLY) unless named; in CI's
// embedded pass (CI_PASS=embedded) not those it runs once, in its Postgres pass (ONCE_IN_CI).
const { ONCE_IN_CI, SERVER_ONLY, named } = require('./test/end-to-end');

const leftOut = [
  ...(process.env.DATABASE_URL ? [] : SERVER_ONLY),
  ...(process.env.CI_PASS === 'embedded' ? ONCE_IN_CI : []),
].filter((name) => !named(name));

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...leftOut.map((name) => `/test/${name}\\.test\\.ts$`)],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  testTimeout: 60000,
  // Two cores: keep workers few; each file gets its own database (test/support/db.ts), on the
  // embedded one a copy of a template the global setup makes once.
  maxWorkers: 2,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
};
