import type http from 'node:http';
import { createKey } from '../../src/auth/keys';
import type { Config } from '../../src/config';
import { freshDatabase, type TestDatabase } from './db';
import { serveOver } from './serve';

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
 * a credential to call it. `env` sets configuration as the environment would; the rate limits
 * are far above what a test file sends unless a test sets them (serveOver).
 */
export async function startService(env: NodeJS.ProcessEnv = {}, opts: { seed?: boolean } = {}): Promise<TestService> {
  const db = await freshDatabase({ seed: opts.seed !== false });
  const key = await createKey(db.knex, 'test');
  const served = await serveOver(db, env);
  return {
    url: served.url,
    config: served.config,
    db,
    key,
    server: served.server,
    close: async () => {
      await served.close();
      await db.destroy();
    },
  };
}
