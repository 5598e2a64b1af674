// PGlite runs outside jest's VM (it imports dynamically): test/embedded-template.test.ts runs
//   node bin/run-ts.js test/support/embedded-template-run.ts build <template root>
//   node bin/run-ts.js test/support/embedded-template-run.ts open <template root> <data folder>
// each printing one JSON line.
import { loadDatabaseConfig } from '../../src/config';
import { createKnex, openDatabase } from '../../src/db/connect';
import { startEmbedded } from '../../src/db/embedded';
import { buildTemplate, currentTemplate } from '../../src/db/embedded-template';
import { SAMPLE_SEEDING } from '../../seeds/sample';

async function main(): Promise<unknown> {
  const [action, root, dir] = process.argv.slice(2);
  const config = loadDatabaseConfig({ LOG_LEVEL: 'silent' });
  if (action === 'build') {
    const built = await buildTemplate(async (into) => {
      const db = await openDatabase({ ...config, SVAPI_DATA_DIR: into }, 'service', { seed: SAMPLE_SEEDING });
      await db.close();
    }, root);
    return { built };
  }
  const server = await startEmbedded(dir, { template: () => currentTemplate(root) });
  const knex = createKnex(server.url, 'admin', config, true);
  try {
    const has = await knex.schema.hasTable('knex_migrations');
    const count = async (table: string) => Number((await knex(table).count({ n: '*' }))[0].n);
    return {
      created: server.created,
      fromTemplate: server.fromTemplate,
      migrations: has ? await knex('knex_migrations').orderBy('name').pluck('name') : [],
      monsters: has ? await count('monsters') : 0,
      devKeys: has ? await count('dev_keys') : 0,
    };
  } finally {
    await knex.destroy();
    await server.stop();
  }
}

main().then((r) => console.log(JSON.stringify(r)), (e: unknown) => {
  console.error(e);
  process.exit(1);
});
