// Read by knex's own CLI: `npx knex migrate:latest`, `npx knex migrate:rollback`,
// `npx knex seed:run` with DATABASE_URL set. The settings are svapi's (src/knexfile.ts): its
// connection code, migrations and seed. In a checkout they run from the TypeScript source through
// tsx; where tsx is not installed (a production install), from the compiled build in dist/.
const path = require('node:path');

function settingsModule() {
  try {
    require('tsx/cjs');
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
    return require(path.join(__dirname, 'dist/src/knexfile'));
  }
  return require(path.join(__dirname, 'src/knexfile'));
}

module.exports = async () => {
  const { knexfile, ConfigError, CONFIG_EXIT_CODE } = settingsModule();
  try {
    return await knexfile();
  } catch (e) {
    // Said as svapi says it, not as a stack trace under "Failed to read config from knexfile".
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(CONFIG_EXIT_CODE);
    }
    throw e;
  }
};
