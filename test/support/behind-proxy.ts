import { createKey } from '../../src/auth/keys';
import { freshDatabase, type TestDatabase } from './db';
import { serveOver, type ServedApp } from './serve';
import { TcpProxy } from './tcp-proxy';

/** A seeded database reached only through a TCP proxy the test can freeze, cut or resume, an app over it, and a key. */
export interface ServedBehindProxy {
  db: TestDatabase;
  proxy: TcpProxy;
  app: ServedApp;
  key: { devId: number; devKey: string };
  close(): Promise<void>;
}

export async function serveBehindProxy(keyName: string, env: NodeJS.ProcessEnv): Promise<ServedBehindProxy> {
  const db = await freshDatabase({ seed: true });
  const key = await createKey(db.knex, keyName);
  const target = new URL(db.url);
  const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  await proxy.start();
  const app = await serveOver(db, env, { databaseUrl: proxy.urlFor(db.url), captureLog: true });
  return {
    db,
    proxy,
    app,
    key,
    close: async () => {
      await app.close();
      await proxy.stop();
      await db.destroy();
    },
  };
}
