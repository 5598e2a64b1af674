import type { Knex } from 'knex';
import { ConfigError, loadDatabaseConfig } from '../config';
import { knexConfig } from './connect';
import { migrationSource } from '../../migrations';
import { seedSource } from '../../seeds';

export { ConfigError };

/**
 * The settings knex's own CLI uses (`npx knex migrate:latest`, `migrate:rollback`, `seed:run`,
 * through knexfile.js): svapi's admin connection, its migrations and its seed (the sample
 * dataset through the loader), from the same environment variables as `svapi migrate` and `load`.
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
  return {
    ...knexConfig(config.DATABASE_URL, 'admin', config, false),
    migrations: { migrationSource },
    seeds: { seedSource },
  };
}
