// Mutation testing (StrykerJS): `npm run test:mutation`. Not part of CI (.ci/run does not run it).
// See docs/mutation-testing.md for how to run it folder by folder and what the numbers mean.
//
// Tests: the default jest config (jest.config.js), so the end-to-end files stay out: they run
// the compiled dist/ in child processes and could not see a mutant anyway. Jest's roots get
// src/ and seeds/ so that --findRelatedTests follows imports through the app (a test that
// serves the app is related to src/cache/ by way of src/app.ts). MUTATION_TESTS (test file
// names without `.test.ts`, comma-separated) narrows the run to those files, for a bounded run
// on a busy machine: `MUTATION_TESTS=result-cache,answer-cache npm run test:mutation -- --mutate 'src/cache/**/*.ts'`.

import process from 'node:process';

const only = (process.env.MUTATION_TESTS ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  mutate: ['src/cache/**/*.ts', 'src/auth/**/*.ts', 'src/pipeline/**/*.ts'],
  coverageAnalysis: 'perTest',
  jest: {
    projectType: 'custom',
    configFile: 'jest.config.js',
    enableFindRelatedTests: true,
    config: {
      roots: ['<rootDir>/test', '<rootDir>/src', '<rootDir>/seeds'],
      ...(only.length ? { testMatch: only.map((name) => `<rootDir>/test/${name}.test.ts`) } : {}),
    },
  },
  // Two cores shared with a database and other work: one test runner, and time-outs that
  // allow for a loaded machine (a mutant is "timed out" past timeoutMS + timeoutFactor × the
  // covering tests' time in the initial run).
  concurrency: 1,
  timeoutMS: 30000,
  timeoutFactor: 3,
  dryRunTimeoutMinutes: 30,
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  ignorePatterns: ['coverage', 'bench/results', '.svapi-data', 'scratch', '*.log'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${process.env.MUTATION_REPORT ?? 'mutation'}.html` },
  jsonReporter: { fileName: `reports/mutation/${process.env.MUTATION_REPORT ?? 'mutation'}.json` },
  thresholds: { high: 80, low: 60, break: null },
};
