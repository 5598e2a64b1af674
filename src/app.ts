import express from 'express';
import type { Config } from './config';
import type { Database } from './db/connect';
import type { Logger } from './log';
import { schemaIsCurrent } from './db/migrate';
import { CredentialChecker } from './auth/credentials';
import { errors, toServiceError } from './errors';
import { RecordSerializer } from './xml/records';
import { ENDPOINTS } from './bindings/endpoints';
import { WsdlDocuments } from './bindings/wsdl-documents';
import type { BindingContext } from './bindings/context';
import { soapHandler } from './bindings/soap';
import { httpHandler, sendHttpError } from './bindings/http';
import { endpointGetHandler, indexHandler } from './bindings/docs';
import { requestId } from './bindings/request-id';
import { accessLog } from './bindings/access-log';
import { createMetrics } from './metrics';

export interface AppContext {
  config: Config;
  db: Database;
  logger: Logger;
}

export async function createApp(ctx: AppContext): Promise<express.Express> {
  const { config, logger } = ctx;
  const knex = ctx.db.knex;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // One proxy hop: req.ip (the auth-failure throttle's key) is the address that proxy saw.
  app.set('trust proxy', config.SVAPI_TRUST_PROXY ? 1 : false);
  app.use(requestId(logger));
  const metrics = createMetrics(knex);
  app.use(accessLog(logger, (r) => metrics.observe(r)));

  const binding: BindingContext = {
    knex,
    config,
    logger,
    credentials: new CredentialChecker(knex, config),
    serializer: new RecordSerializer(),
    wsdl: new WsdlDocuments(config.SVAPI_NAMESPACE),
  };
  const ns = config.SVAPI_NAMESPACE;

  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  app.get('/readyz', async (_req, res) => {
    try {
      const current = await schemaIsCurrent(knex);
      res.status(current ? 200 : 503).type('text/plain').send(current ? 'ready' : 'schema not current');
    } catch {
      res.status(503).type('text/plain').send('database unreachable');
    }
  });
  app.get('/metrics', async (_req, res, next) => {
    try {
      const text = await metrics.registry.metrics();
      res.type(metrics.registry.contentType).send(text);
    } catch (e) {
      next(e);
    }
  });
  app.get('/', indexHandler(binding));

  for (const endpoint of ENDPOINTS) {
    app.post(endpoint.path, await soapHandler(endpoint, binding));
    app.get(endpoint.path, endpointGetHandler(endpoint, binding));
    app.all(endpoint.path, (_req, res) => sendHttpError(res, errors.methodNotAllowed(['GET', 'POST']), ns));
    app.all(`${endpoint.path}/:operation`, httpHandler(endpoint, binding));
  }

  app.use((_req, res) => sendHttpError(res, errors.notFound('This path'), ns));
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    sendHttpError(res, toServiceError(err), ns);
  });
  return app;
}
