import http from 'node:http';
import type { Config } from './config';
import { openDatabase } from './db/connect';
import { createKey } from './auth/keys';
import { createKnex } from './db/connect';
import { createApp } from './app';
import { createHttpServer } from './http-server';
import type { Logger } from './log';

export interface RunningServer {
  url: string;
  server: http.Server;
  /** Printed at start in embedded mode so a newcomer can call the service at once. */
  demoKey?: { devId: number; devKey: string };
  close(): Promise<void>;
}

export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const db = await openDatabase(config, 'service');
  let demoKey: RunningServer['demoKey'];
  if (db.embedded?.owner) {
    const admin = createKnex(db.embedded.url, 'admin', config, true);
    try {
      demoKey = await createKey(admin, 'demo (embedded start)');
    } finally {
      await admin.destroy();
    }
  }
  const app = await createApp({ config, db, logger });
  const server = createHttpServer(app, config);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  return {
    url: config.SVAPI_PUBLIC_URL ?? `http://${host}:${port}`,
    server,
    demoKey,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
