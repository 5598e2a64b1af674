import knexFactory, { type Knex } from 'knex';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DatabaseConfig } from '../config';
import { startEmbedded, type EmbeddedServer } from './embedded';
import { currentTemplate } from './embedded-template';
import { migrateLatest } from './migrate';
import { endReadPool, type ReadPoolParams } from './read-pool';
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

export interface OpenOptions {
  /** DATABASE_URL is the embedded database of another svapi process (a cluster worker's primary). */
  sharedEmbedded?: boolean;
  /** Told, a line at a time, what opening (and first creating) the embedded database does: it takes seconds. */
  report?: (line: string) => void;
  /**
   * What fills a service's embedded database on its first start (the sample data, seeds/sample.ts):
   * a copy of the prepared template when it is current, else `run` on the new database.
   */
  seed?: Seeding;
}

/** The data a first start puts into a new embedded database, and how. */
export interface Seeding {
  /** Where the data is read from (for messages). */
  dir: string;
  run(admin: Knex): Promise<{ files: readonly unknown[] }>;
}

/**
 * Opens the configured database. The service's role is read-only at the session level
 * (CONTRACT §6); migrations, loads and key commands use the admin role. Every statement has
 * the configured time-out.
 */
export async function openDatabase(config: DatabaseConfig, role: Role, opts: OpenOptions = {}): Promise<Database> {
  const report = opts.report ?? (() => {});
  let opening: { since: number; created: boolean } | undefined;
  const embedded = config.DATABASE_URL ? undefined : await startEmbedded(config.SVAPI_DATA_DIR, {
    onOpen: (dir, created) => {
      opening = { since: performance.now(), created };
      report(created ? `first start: creating the embedded database in ${dir} ...` : `opening the embedded database in ${dir} ...`);
    },
    // The service's first start copies the database `npm run build` prepared (migrated, with the
    // sample data); the other commands start from an empty one, which they migrate.
    template: role === 'service' && opts.seed ? () => currentTemplate() : undefined,
  });
  if (opening) {
    const how = embedded?.fromTemplate ? ' from the prepared copy, migrated and with the sample data' : '';
    report(`${opening.created ? 'first start: created' : 'opened'} the embedded database${how} (${seconds(opening.since)})`);
  }
  const url = config.DATABASE_URL ?? embedded!.url;
  // sharedEmbedded: the embedded treatment (no session-level settings) for another process's embedded database.
  const knex = createKnex(url, role, config, Boolean(embedded) || Boolean(opts.sharedEmbedded));
  if (embedded?.created && !embedded.fromTemplate) {
    const migrating = performance.now();
    report('first start: creating the schema ...');
    const applied = await migrateLatest(knex);
    report(`first start: applied ${applied.length} migrations (${seconds(migrating)})`);
    if (role === 'service' && opts.seed) {
      // A fresh embedded database is filled with the sample data on first start.
      const seeding = performance.now();
      report(`first start: loading the sample data from ${opts.seed.dir} ...`);
      const admin = createKnex(url, 'admin', config, true);
      try {
        const loaded = await opts.seed.run(admin);
        report(`first start: loaded ${loaded.files.length} files of sample data (${seconds(seeding)})`);
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
      await endReadPool(knex);
      await knex.destroy();
      await embedded?.stop();
    },
  };
}

/** Where the configured database is, for messages; a URL's password is left out. */
export function databaseLocation(config: DatabaseConfig): string {
  if (!config.DATABASE_URL) return `${path.resolve(config.SVAPI_DATA_DIR)} (embedded)`;
  const url = new URL(config.DATABASE_URL);
  if (url.password) url.password = '***';
  return url.toString();
}

/** The database named by the URL could not be reached or refused the connection. */
export class DatabaseUnreachableError extends Error {
  constructor(where: string, cause: unknown, readonly refused: boolean) {
    super(`cannot connect to the database at ${where}: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`);
  }
}

/**
 * Opens a connection, so a wrong URL is said in one line before any other work. `refused`: the
 * server answered and said no (no such database, wrong credentials), which waiting will not fix.
 */
export async function requireReachable(knex: Knex, where: string): Promise<void> {
  try {
    await knex.raw('SELECT 1');
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    throw new DatabaseUnreachableError(where, e, typeof code === 'string' && (code === '3D000' || code.startsWith('28')));
  }
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

const CLIENT_TIMEOUT_MARGIN_MS = 500;

/**
 * The knex of `role`. The service's also has the reads' pg Pool (db/read-pool.ts), opened on the
 * first read, on the same connection settings: it takes the process's connections.
 */
export function createKnex(url: string, role: Role, config: DatabaseConfig, embedded: boolean): Knex {
  const settings = knexConfig(url, role, config, embedded);
  if (role === 'service') {
    const log = createLogger(config.LOG_LEVEL).child({ component: 'pg-pool' });
    const readPool: ReadPoolParams = {
      max: connectionsOf(config, embedded),
      onError: (e) => log.warn(`an idle database connection failed: ${e.message.split('\n')[0]}`),
    };
    settings.userParams = { ...settings.userParams, readPool };
  }
  return knexFactory(settings);
}

/** Connections a process may open for queries: PGlite's socket server takes 16 in all (db/embedded.ts). */
const connectionsOf = (config: DatabaseConfig, embedded: boolean) => (embedded ? Math.min(config.SVAPI_DB_POOL_MAX, 8) : config.SVAPI_DB_POOL_MAX);

/** The knex settings of a connection in `role` (also the knexfile's). */
export function knexConfig(url: string, role: Role, config: DatabaseConfig, embedded: boolean): Knex.Config & { userParams: Record<string, unknown> } {
  // PGlite is a single session behind a multiplexer: session settings would leak between
  // connections there, so read-only is enforced at the session level on real servers only.
  const options = role === 'service' && !embedded ? '-c default_transaction_read_only=on' : undefined;
  const connection = {
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
  };
  const settings: Knex.Config & { userParams: Record<string, unknown> } = {
    client: 'pg',
    connection,
    // The service reads on a pool of its own (createKnex): its knex opens no connection on a request's path.
    pool: { min: 0, max: role === 'service' ? 1 : connectionsOf(config, embedded) },
    // knex reports connection trouble itself (console by default): into the JSON log instead.
    log: knexLog(config, role),
    // knex's public place for settings of one's own, read as knex.userParams: the connection
    // settings, for the reads' pool and the loader's COPY client (own-client.ts); and whether
    // statements are prepared by name (queries/statements.ts). PGlite is one session behind a
    // multiplexer, where a statement prepared by name on one connection would collide with the
    // same name from another.
    userParams: { connection, namedStatements: !embedded && config.SVAPI_DB_NAMED_STATEMENTS },
    // The service waits no longer for a connection than for a statement: with the database
    // down a request is ServiceUnavailable after about SVAPI_DB_TIMEOUT_MS, never hangs.
    acquireConnectionTimeout: role === 'service' ? config.SVAPI_DB_TIMEOUT_MS : Math.max(config.SVAPI_DB_TIMEOUT_MS, 10_000),
  };
  return settings;
}

function knexLog(config: DatabaseConfig, role: Role): Knex.Config['log'] {
  const log = createLogger(config.LOG_LEVEL).child({ component: 'knex' });
  // The first line: a failed connection's message carries its stack.
  const text = (m: unknown) => (m instanceof Error ? m.message : String(m)).split('\n')[0];
  return {
    // An admin command says itself, in one line, why it could not connect (requireReachable).
    warn: (m: unknown) => (role === 'admin' && text(m).startsWith('Acquire connection error') ? log.debug(text(m)) : log.warn(text(m))),
    error: (m: unknown) => log.error(text(m)),
    deprecate: (method: string, alternative: string) => log.warn(`${method} is deprecated, use ${alternative}`),
    debug: (m: unknown) => log.debug(text(m)),
  };
}
