// `npm test`: every test file but the end-to-end ones (test/end-to-end.js), which
// `npm run test:all` (jest.all.config.js) adds. An end-to-end file named on the command line
// (`npx jest test/browser.test.ts`) runs.
const { END_TO_END, named } = require('./test/end-to-end');
const all = require('./jest.all.config');

/** @type {import('jest').Config} */
module.exports = {
  ...all,
  testPathIgnorePatterns: [...all.testPathIgnorePatterns, ...END_TO_END.filter((name) => !named(name)).map((name) => `/test/${name}\\.test\\.ts$`)],
  globalTeardown: '<rootDir>/test/support/skipped-note.js',
};
