// `npm run build`, after tsc: `node dist/src/build-embedded-template.js` makes the first
// start's embedded database (src/db/embedded-template.ts), unless the one there is current.
import { performance } from 'node:perf_hooks';
import { loadDatabaseConfig } from './config';
import { openDatabase } from './db/connect';
import { buildTemplate, TEMPLATE_DIR } from './db/embedded-template';
import { SAMPLE_SEEDING } from '../seeds/sample';

async function main(): Promise<void> {
  const since = performance.now();
  const built = await buildTemplate(async (dir) => {
    // Whatever DATABASE_URL says: the template is an embedded database.
    const config = loadDatabaseConfig({ SVAPI_DATA_DIR: dir, LOG_LEVEL: 'warn' });
    const db = await openDatabase(config, 'service', { report: (line) => console.log(`  ${line}`), seed: SAMPLE_SEEDING });
    await db.close();
  });
  console.log(built
    ? `made the first start's embedded database in ${TEMPLATE_DIR} (${((performance.now() - since) / 1000).toFixed(1)} s)`
    : `the first start's embedded database in ${TEMPLATE_DIR} is current`);
}

main().catch((e: unknown) => {
  console.error(`build-embedded-template: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
