import knexFactory, { type Knex } from 'knex';
import type { Config } from '../config';
import { startEmbedded, type EmbeddedServer } from './embedded';
import { migrateLatest } from './migrate';
import { seed } from '../../seeds/sample';
import { createLogger } from '../log';

export type Role = 'service' | 'admin';

export interface Database {
  knex: Knex;
  /** Set when the database is the embedded PGlite one. */
  embedded?: EmbeddedServer;
  /** A real server's URL, where LISTEN works (PGlite's socket server delivers no notifications). */
  listenUrl?: string;
  close(): Promise<void>;
}

/**
 * Opens the configured database. The service's role is read-only at the session level
 * (CONTRACT §6); migrations, loads and key commands use the admin role. Every statement has
 * the configured time-out.
 */
export async function openDatabase(config: Config, role: Role, opts: { sharedEmbedded?: boolean } = {}): Promise<Database> {
  const embedded = config.DATABASE_URL ? undefined : await startEmbedded(config.SVAPI_DATA_DIR);
  const url = config.DATABASE_URL ?? embedded!.url;
  // sharedEmbedded: DATABASE_URL is the embedded database of another svapi process (a cluster
  // worker's primary), which gets the embedded treatment (no session-level settings).
  const knex = createKnex(url, role, config, Boolean(embedded) || Boolean(opts.sharedEmbedded));
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
    listenUrl: embedded || opts.sharedEmbedded ? undefined : url,
    close: async () => {
      await knex.destroy();
      await embedded?.stop();
    },
  };
}

const CLIENT_TIMEOUT_MARGIN_MS = 500;

/** True for a pg client that still has a statement outstanding (pg has no public accessor). */
function stillBusy(connection: unknown): boolean {
  const c = connection as { _getActiveQuery?: () => unknown; _queryQueue?: unknown[] };
  return Boolean(c._getActiveQuery?.()) || (c._queryQueue?.length ?? 0) > 0;
}

export function createKnex(url: string, role: Role, config: Config, embedded: boolean): Knex {
  // PGlite is a single session behind a multiplexer: session settings would leak between
  // connections there, so read-only is enforced at the session level on real servers only.
  const options = role === 'service' && !embedded ? '-c default_transaction_read_only=on' : undefined;
  const knexConfig: Knex.Config & { userParams: Record<string, unknown> } = {
    client: 'pg',
    connection: {
      connectionString: url,
      options,
      statement_timeout: role === 'service' ? config.SVAPI_DB_TIMEOUT_MS : undefined,
      // Client-side bound as well: PGlite has no statement time-out at all, and a server that
      // vanished without closing the connection never sends the cancellation. Half a second
      // later than the server's own, so on a real server the statement is cancelled there first.
      query_timeout: role === 'service' ? config.SVAPI_DB_TIMEOUT_MS + CLIENT_TIMEOUT_MARGIN_MS : undefined,
      keepAlive: true,
      connectionTimeoutMillis: config.SVAPI_DB_TIMEOUT_MS,
      application_name: `svapi-${role}`,
    },
    // A connection whose statement timed out on the client side still waits for that statement's
    // answer: it is dropped rather than handed to the next request.
    pool: { min: 0, max: embedded ? Math.min(config.SVAPI_DB_POOL_MAX, 8) : config.SVAPI_DB_POOL_MAX, validate: (c: unknown) => !stillBusy(c) },
    // knex reports connection trouble itself (console by default): into the JSON log instead.
    log: knexLog(config),
    // Read by queries/statements.ts: PGlite is one session behind a multiplexer, where a statement
    // prepared by name on one connection would collide with the same name from another.
    userParams: { namedStatements: !embedded && config.SVAPI_DB_NAMED_STATEMENTS },
    // The service waits no longer for a connection than for a statement: with the database
    // down a request is ServiceUnavailable after about SVAPI_DB_TIMEOUT_MS, never hangs.
    acquireConnectionTimeout: role === 'service' ? config.SVAPI_DB_TIMEOUT_MS : Math.max(config.SVAPI_DB_TIMEOUT_MS, 10_000),
  };
  return knexFactory(knexConfig);
}

function knexLog(config: Config): Knex.Config['log'] {
  const log = createLogger(config.LOG_LEVEL).child({ component: 'knex' });
  const text = (m: unknown) => (m instanceof Error ? m.message : String(m));
  return {
    warn: (m: unknown) => log.warn(text(m)),
    error: (m: unknown) => log.error(text(m)),
    deprecate: (method: string, alternative: string) => log.warn(`${method} is deprecated, use ${alternative}`),
    debug: (m: unknown) => log.debug(text(m)),
  };
}
