// Global teardown of `npm test` (jest.config.js): after a run of the whole default selection, says
// which test files it left out and how to run them.
const { END_TO_END, NEEDS, SERVER_ONLY } = require('../end-to-end');

module.exports = async function skippedNote(globalConfig) {
  if (globalConfig.testPathPatterns?.patterns?.length || globalConfig.testNamePattern) return;
  process.stderr.write(`\n${END_TO_END.length} end-to-end test files not run: ${END_TO_END.join(', ')}.\n`
    + `Run every test with \`npm run test:all\` (needs ${NEEDS}; several minutes more).\n`);
  if (!process.env.DATABASE_URL) {
    process.stderr.write(`Not run on the embedded database (they need a Postgres server, DATABASE_URL): ${SERVER_ONLY.join(', ')}.\n`);
  }
};
