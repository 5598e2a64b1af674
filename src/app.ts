import express from 'express';
import type { Config } from './config';
import type { Database } from './db/connect';
import type { Logger } from './log';
import { schemaIsCurrent } from './db/migrate';

export interface AppContext {
  config: Config;
  db: Database;
  logger: Logger;
}

export function createApp(ctx: AppContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');

  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });

  app.get('/readyz', async (_req, res) => {
    try {
      const current = await schemaIsCurrent(ctx.db.knex);
      res.status(current ? 200 : 503).type('text/plain').send(current ? 'ready' : 'schema not current');
    } catch {
      res.status(503).type('text/plain').send('database unreachable');
    }
  });

  return app;
}
