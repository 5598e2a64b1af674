import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { createKey } from '../../src/auth/keys';
import { loadConfig, type Config } from '../../src/config';
import { createKnex } from '../../src/db/connect';
import { createLogger } from '../../src/log';
import { createHttpServer } from '../../src/http-server';
import { seed } from '../../seeds/sample';
import { freshDatabase, type TestDatabase } from './db';

export interface TestService {
  url: string;
  config: Config;
  db: TestDatabase;
  key: { devId: number; devKey: string };
  server: http.Server;
  close(): Promise<void>;
}

/**
 * The whole service on a loopback port over a fresh database holding the sample dataset, with
 * a credential to call it. `env` sets configuration as the environment would.
 */
export async function startService(env: NodeJS.ProcessEnv = {}, opts: { seed?: boolean } = {}): Promise<TestService> {
  const db = await freshDatabase();
  if (opts.seed !== false) await seed(db.knex);
  const key = await createKey(db.knex, 'test');
  // Limits far above what a test file sends, unless a test sets them (test/limits.test.ts).
  const config = loadConfig({ LOG_LEVEL: 'silent', SVAPI_RATE_LIMIT: '1000000', SVAPI_AUTH_FAIL_LIMIT: '1000000', ...env, DATABASE_URL: db.url });
  const knex = createKnex(db.url, 'service', config, db.embedded);
  const app = await createApp({ config, db: { knex, close: () => knex.destroy() }, logger: createLogger(config.LOG_LEVEL) });
  const server = createHttpServer(app, config);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    db,
    key,
    server,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await knex.destroy();
      await db.destroy();
    },
  };
}
