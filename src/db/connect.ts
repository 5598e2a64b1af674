import knexFactory, { type Knex } from 'knex';
import type { Config } from '../config';
import { startEmbedded, type EmbeddedServer } from './embedded';
import { migrateLatest } from './migrate';
import { seed } from '../../seeds/sample';

export type Role = 'service' | 'admin';

export interface Database {
  knex: Knex;
  /** Set when the database is the embedded PGlite one. */
  embedded?: EmbeddedServer;
  close(): Promise<void>;
}

/**
 * Opens the configured database. The service's role is read-only at the session level
 * (CONTRACT §6); migrations, loads and key commands use the admin role. Every statement has
 * the configured time-out.
 */
export async function openDatabase(config: Config, role: Role): Promise<Database> {
  const embedded = config.DATABASE_URL ? undefined : await startEmbedded(config.SVAPI_DATA_DIR);
  const url = config.DATABASE_URL ?? embedded!.url;
  const knex = createKnex(url, role, config, Boolean(embedded));
  if (embedded?.created) {
    await migrateLatest(knex);
    if (role === 'service') {
      // A fresh embedded database is filled with the sample data on first start.
      const admin = createKnex(url, 'admin', config, true);
      try {
        await seed(admin);
      } finally {
        await admin.destroy();
      }
    }
  }
  return {
    knex,
    embedded,
    close: async () => {
      await knex.destroy();
      await embedded?.stop();
    },
  };
}

export function createKnex(url: string, role: Role, config: Config, embedded: boolean): Knex {
  // PGlite is a single session behind a multiplexer: session settings would leak between
  // connections there, so read-only is enforced at the session level on real servers only.
  const options = role === 'service' && !embedded ? '-c default_transaction_read_only=on' : undefined;
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      options,
      statement_timeout: role === 'service' ? config.SVAPI_DB_TIMEOUT_MS : undefined,
      connectionTimeoutMillis: config.SVAPI_DB_TIMEOUT_MS,
      application_name: `svapi-${role}`,
    },
    pool: { min: 0, max: embedded ? Math.min(config.SVAPI_DB_POOL_MAX, 8) : config.SVAPI_DB_POOL_MAX },
    acquireConnectionTimeout: Math.max(config.SVAPI_DB_TIMEOUT_MS, 10_000),
  });
}
