// `npm run test:all` (and CI): every test file.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  testTimeout: 60000,
  // Two cores: keep workers few; each file gets its own database (test/support/db.ts), on the
  // embedded one a copy of a template the global setup makes once.
  maxWorkers: 2,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
};
