import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { createKnex } from '../../src/db/connect';
import { createLogger } from '../../src/log';

export interface PagesService {
  url: string;
  config: Config;
  /** The listening server, for supertest. */
  server: http.Server;
  close(): Promise<void>;
}

/**
 * The whole app on a loopback port over a database that is never reached (knex connects only
 * when a query runs): for what needs no data (pages, WSDLs, addresses under another
 * configuration) without the cost of a database per configuration.
 */
export async function startWithoutDatabase(env: NodeJS.ProcessEnv = {}): Promise<PagesService> {
  // No cache: its watcher would poll the database that is never there.
  const config = loadConfig({ LOG_LEVEL: 'silent', SVAPI_CACHE_MB: '0', ...env });
  const knex = createKnex('postgres://nobody@127.0.0.1:1/none', 'service', config, false);
  const { app, stop } = await createApp({ config, db: { knex, close: () => knex.destroy() }, logger: createLogger(config.LOG_LEVEL) });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    server,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stop();
      await knex.destroy();
    },
  };
}
