import type { Knex } from 'knex';
import { ConfigError, CONFIG_EXIT_CODE, loadDatabaseConfig } from './config';
import { databaseLocation, knexConfig } from './db/connect';
import { requireCurrentSchema, SchemaNotCurrentError } from './db/migrate';
import { migrationSource } from '../migrations';
import { seedSource } from '../seeds';

export { ConfigError, CONFIG_EXIT_CODE };

/**
 * The settings knex's own CLI uses (`npx knex migrate:latest`, `migrate:rollback`, `migrate:make`,
 * `seed:run`, through knexfile.js): svapi's admin connection, its migrations and its seed (the
 * sample dataset through the loader), from the same environment variables as `svapi migrate` and
 * `load`. `migrate:make` writes JavaScript (knex's own template), which runs from a checkout and
 * from a compiled, pruned install alike.
 */
export async function knexfile(env: NodeJS.ProcessEnv = process.env): Promise<Knex.Config> {
  const config = loadDatabaseConfig(env);
  if (!config.DATABASE_URL) {
    throw new ConfigError([
      'DATABASE_URL is not set: the knex commands work on a Postgres server, e.g.',
      '  DATABASE_URL=postgres://user:password@host:5432/db npx knex migrate:latest',
      'For the embedded database use `npx svapi migrate` and `npx svapi load seeds/data`.',
    ].join('\n'));
  }
  const where = databaseLocation(config);
  const settings = knexConfig(config.DATABASE_URL, 'admin', config, false);
  return {
    ...settings,
    migrations: { migrationSource, extension: 'js' },
    seeds: {
      seedSource: {
        getSeeds: (seedConfig) => seedSource.getSeeds(seedConfig),
        getSeed: async (name: string) => {
          const seed = await seedSource.getSeed(name);
          return {
            // The loader's COPY opens a connection of its own on the settings in knex.userParams.
            seed: async (knex) => seed.seed(await schemaChecked(knex, where)),
          };
        },
      },
    },
  };
}

/**
 * A seed on a database without the schema says so in one line and exits 1, as `svapi load` does:
 * knex's CLI would print the failed SQL and a stack trace.
 */
async function schemaChecked(knex: Knex, where: string): Promise<Knex> {
  try {
    await requireCurrentSchema(knex, where);
  } catch (e) {
    if (!(e instanceof SchemaNotCurrentError)) throw e;
    console.error(`svapi: ${e.message}`);
    process.exit(1);
  }
  return knex;
}
