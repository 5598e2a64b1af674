// `npm test`: every test file but the end-to-end ones (test/end-to-end.js), which
// `npm run test:all` (jest.all.config.js) adds. An end-to-end file named on the command line
// (`npx jest test/browser.test.ts`) runs.
const { END_TO_END } = require('./test/end-to-end');
const all = require('./jest.all.config');

const named = (name) => process.argv.some((arg) => new RegExp(`(^|/)${name}\\.test`).test(arg));

/** @type {import('jest').Config} */
module.exports = {
  ...all,
  testPathIgnorePatterns: ['/node_modules/', ...END_TO_END.filter((name) => !named(name)).map((name) => `/test/${name}\\.test\\.ts$`)],
  globalTeardown: '<rootDir>/test/support/skipped-note.js',
};
