import type http from 'node:http';
import express from 'express';
import type { Config } from './config';
import type { Database } from './db/connect';
import type { Logger } from './log';
import { readSchemaIsCurrent } from './db/queries/schema';
import { CredentialChecker } from './auth/credentials';
import { LimitStore } from './auth/limit-store';
import { errors, toServiceError } from './errors';
import { ENDPOINTS, type Endpoint } from './bindings/endpoints';
import { WsdlDocuments } from './bindings/wsdl-documents';
import { endpointGetHandler, indexHandler } from './bindings/docs';
import { assignRequestId } from './bindings/request-id';
import { accessLog } from './bindings/access-log';
import { answerFavicon } from './bindings/favicon';
import type { Req, Res } from './http/exchange';
import { BINDINGS } from './pipeline/registry';
import { callHandler } from './pipeline/handle';
import { router, type RoutedCall } from './pipeline/router';
import { InFlightLimit } from './pipeline/in-flight';
import { EventLoopGuard } from './pipeline/event-loop-guard';
import { DbQueue } from './pipeline/db-queue';
import { OverloadReport } from './pipeline/overload-report';
import { sendErrorDocument } from './pipeline/error-document';
import { logServiceError } from './pipeline/log-error';
import type { ServiceContext } from './pipeline/service-context';
import { createMetrics } from './metrics';
import { readPoolMax } from './db/read-pool';
import { ResultCache } from './cache/result-cache';
import { DataChangeWatcher } from './cache/data-change-watcher';

export interface AppContext {
  config: Config;
  db: Database;
  logger: Logger;
  /** Where the access log goes (a line per request); default: `logger`. */
  accessLogger?: Logger;
}

export interface ServiceApp {
  /** The request listener for an http.Server. */
  app: http.RequestListener;
  /** Stops what runs in the background (the data-change watcher); the database stays open. */
  stop(): Promise<void>;
  /** From now on /readyz answers 503 (shutting down), so a balancer stops sending requests here. */
  drain(): void;
}

export async function createApp(ctx: AppContext): Promise<ServiceApp> {
  const { config, logger } = ctx;
  const knex = ctx.db.knex;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // One proxy hop: req.ip is the address that proxy saw (as clientAddress gives it).
  app.set('trust proxy', config.SVAPI_TRUST_PROXY ? 1 : false);
  const results = new ResultCache(config.SVAPI_CACHE_MB * 1024 * 1024);
  const watcher = new DataChangeWatcher(knex, results, { listenUrl: ctx.db.listenUrl, pollMs: config.SVAPI_CACHE_CHECK_MS, logger });
  await watcher.start();
  const redis = config.SVAPI_REDIS_URL ? { url: config.SVAPI_REDIS_URL, timeoutMs: config.SVAPI_REDIS_TIMEOUT_MS } : undefined;
  const limits = LimitStore.open(redis, logger);
  // Overload (README: Overload): the event loop's delay and the waits for a database connection decide.
  const loop = new EventLoopGuard(config.SVAPI_MAX_EVENT_LOOP_DELAY_MS);
  const report = new OverloadReport(logger, () => ({ eventLoopDelayMs: Math.round(loop.delayMs), waitingForDatabase: dbQueue.waiting }));
  // A slot is a connection of the reads' pool: a call that has one runs its read at once.
  const dbQueue = new DbQueue({ slots: readPoolMax(knex), targetMs: config.SVAPI_QUEUE_TARGET_MS }, () => report.note('database-wait'));
  const limit = new InFlightLimit(config.SVAPI_MAX_IN_FLIGHT, loop, report);
  const metrics = createMetrics(knex, results, { limits, overload: { limit, loop, dbQueue, report } });
  const log = accessLog(ctx.accessLogger ?? logger, (r) => metrics.observe(r));

  const service: ServiceContext = {
    knex,
    config,
    logger,
    credentials: new CredentialChecker(knex, config, limits),
    results,
    limit,
    dbQueue,
    wsdl: new WsdlDocuments(config.SVAPI_NAMESPACE),
  };
  const ns = config.SVAPI_NAMESPACE;

  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  let draining = false;
  app.get('/readyz', async (_req, res) => {
    if (draining) {
      res.status(503).type('text/plain').send('shutting down');
      return;
    }
    try {
      const current = await readSchemaIsCurrent(knex);
      // Limits counted on the host while Redis is away do not make the service unready; it says so.
      const detail = limits.describe();
      res.status(current ? 200 : 503).type('text/plain').send(`${current ? 'ready' : 'schema not current'}${detail ? `\n${detail}\n` : ''}`);
    } catch {
      res.status(503).type('text/plain').send('database unreachable');
    }
  });
  app.get('/metrics', async (_req, res, next) => {
    try {
      const text = await metrics.scrape();
      res.type(metrics.registry.contentType).send(text);
    } catch (e) {
      next(e);
    }
  });
  app.get('/', indexHandler(service));

  // Operation calls go through the router (below); Express serves only the pages.
  const calls = new Map<Endpoint, RoutedCall[]>();
  for (const endpoint of ENDPOINTS) {
    const routed: RoutedCall[] = [];
    for (const module of BINDINGS) {
      const handle = callHandler(endpoint, await module.create(endpoint, service), service);
      for (const route of module.routes) routed.push({ route, handle });
    }
    calls.set(endpoint, routed);
    app.get(endpoint.path, endpointGetHandler(endpoint, service));
  }

  app.use((_req, res) => sendErrorDocument(res, errors.notFound('This path'), ns));
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const e = toServiceError(err);
    logServiceError(res, e, 'page', logger);
    sendErrorDocument(res, e, ns);
  });
  const begin = (req: Req, res: Res) => {
    assignRequestId(req, res, logger);
    log(req, res);
  };
  return {
    app: answerFavicon(router(calls, begin, app, ns)),
    stop: async () => {
      report.stop();
      loop.stop();
      await watcher.stop();
      await limits.close();
    },
    drain: () => {
      draining = true;
    },
  };
}
