import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { createKnex } from '../../src/db/connect';
import { endReadPool } from '../../src/db/read-pool';
import { createHttpServer } from '../../src/http-server';
import { createLogger } from '../../src/log';
import type { Knex } from 'knex';
import type { TestDatabase } from './db';
import { capturedLogger } from './captured-log';

export interface ServedApp {
  url: string;
  config: Config;
  server: http.Server;
  /** The service's own database connection (to watch the queries it makes). */
  knex: Knex;
  /** Log lines written so far, parsed (only with `captureLog`). */
  log: Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * Another instance of the service over an existing test database (which stays open), with its
 * own configuration; `databaseUrl` replaces the database's URL (a proxy in front of it). The rate
 * limits are far above what a test file sends unless a test sets them; the overload guards are the
 * defaults but for the event loop's: this service shares its event loop with the test's own
 * clients (node-soap parses a WSDL synchronously), so that loop's delay measures the test, not the
 * service. A test of the event-loop guard sets SVAPI_MAX_EVENT_LOOP_DELAY_MS itself; services
 * started as processes (spawn-serve.ts) keep every default.
 */
export async function serveOver(db: TestDatabase, env: NodeJS.ProcessEnv = {}, opts: { databaseUrl?: string; captureLog?: boolean } = {}): Promise<ServedApp> {
  const url = opts.databaseUrl ?? db.url;
  const config = loadConfig({
    LOG_LEVEL: 'silent', SVAPI_RATE_LIMIT: '1000000', SVAPI_AUTH_FAIL_LIMIT: '1000000', SVAPI_MAX_EVENT_LOOP_DELAY_MS: '60000', ...env, DATABASE_URL: url,
  });
  const captured = opts.captureLog ? capturedLogger() : undefined;
  const log = captured?.lines ?? [];
  const logger = captured?.logger ?? createLogger(config.LOG_LEVEL);
  const knex = createKnex(url, 'service', config, db.embedded);
  const { app, stop } = await createApp({ config, db: { knex, close: async () => { await endReadPool(knex); await knex.destroy(); }, listenUrl: db.embedded ? undefined : url }, logger, accessLog: captured?.access });
  const server = createHttpServer(app, config);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    server,
    knex,
    log,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stop();
      await endReadPool(knex);
      await knex.destroy();
    },
  };
}
