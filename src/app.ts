import type http from 'node:http';
import type { Config } from './config';
import type { Database } from './db/connect';
import type { LineSink, Logger } from './log';
import { CredentialChecker } from './auth/credentials';
import { LimitStore } from './auth/limit-store';
import { ENDPOINTS } from './wsdl/endpoints';
import { WsdlDocuments } from './wsdl/documents';
import { endpointGetHandler, indexHandler } from './docs';
import { assignRequestId } from './http/request-id';
import { accessLog } from './http/access-log';
import { answerFavicon } from './http/favicon';
import { endTurnAnswers } from './http/turn-writes';
import type { Req, Res } from './http/exchange';
import { BINDING_NAMES, BINDINGS } from './bindings/registry';
import { callHandler } from './pipeline/handle';
import { router, type PageHandler, type RoutedCall, type RoutedEndpoint } from './http/router';
import { InFlightLimit } from './pipeline/in-flight';
import { EventLoopGuard } from './pipeline/event-loop-guard';
import { CALL_SLICE_MS, RENDER_SLICE_MS, TurnSlices } from './pipeline/turn-slices';
import { DbQueue } from './pipeline/db-queue';
import { EarlyRetries } from './pipeline/early-retries';
import { Arrivals } from './pipeline/arrivals';
import { OverloadReport } from './pipeline/overload-report';
import type { ServiceContext } from './pipeline/service-context';
import { createMetrics } from './metrics';
import { healthz, metricsPage, readyz } from './monitoring';
import { readPoolMax } from './db/read-pool';
import { ResultCache } from './cache/result-cache';
import { DataChangeWatcher } from './cache/data-change-watcher';
import { loadBodyHash } from './http/entity-tag';

interface AppContext {
  config: Config;
  db: Database;
  logger: Logger;
  /** Where the access log's lines go (a line per request); none: no access log. */
  accessLog?: LineSink;
}

interface ServiceApp {
  /** The request listener for an http.Server. */
  app: http.RequestListener;
  /** Stops what runs in the background (the data-change watcher); the database stays open. */
  stop(): Promise<void>;
  /** From now on /readyz answers 503 (shutting down), so a balancer stops sending requests here. */
  drain(): void;
  /** Calls that have waited for a database connection since the start (all of the pool was in use). */
  waitedForDatabase(): number;
}

/**
 * The service as one request listener: the answer cache and what empties it, the rate limits, the
 * overload guards, the metrics, every binding on every endpoint, and the pages, all behind the one
 * router (http/router.ts).
 */
export async function createApp(ctx: AppContext): Promise<ServiceApp> {
  const { config, logger } = ctx;
  await loadBodyHash();
  const knex = ctx.db.knex;
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
  const log = accessLog(ctx.accessLog, BINDING_NAMES, (r) => metrics.observe(r));

  const service: ServiceContext = {
    knex,
    config,
    logger,
    credentials: new CredentialChecker(knex, config, limits),
    results,
    limit,
    dbQueue,
    earlyRetries: new EarlyRetries(),
    arrivals: new Arrivals(),
    renderSlices: new TurnSlices(RENDER_SLICE_MS, undefined, endTurnAnswers),
    callSlices: new TurnSlices(CALL_SLICE_MS, undefined, endTurnAnswers),
    wsdl: new WsdlDocuments(config.SVAPI_NAMESPACE),
  };
  let draining = false;
  const pages = new Map<string, PageHandler>([
    ['/', indexHandler(service)],
    ['/healthz', healthz],
    ['/readyz', readyz(knex, limits, () => draining)],
    ['/metrics', metricsPage(metrics)],
  ]);
  const endpoints: RoutedEndpoint[] = [];
  for (const endpoint of ENDPOINTS) {
    const calls: RoutedCall[] = [];
    for (const module of BINDINGS) {
      const handle = callHandler(endpoint, await module.create(endpoint, service), service);
      for (const route of module.routes) calls.push({ route, handle });
    }
    endpoints.push({ path: endpoint.path, page: endpointGetHandler(endpoint, service), calls });
  }

  const begin = (req: Req, res: Res) => {
    assignRequestId(req, res, logger);
    log(req, res);
  };
  return {
    app: answerFavicon(router({ pages, endpoints, ns: config.SVAPI_NAMESPACE, logger }, begin)),
    stop: async () => {
      report.stop();
      loop.stop();
      await watcher.stop();
      await limits.close();
    },
    drain: () => {
      draining = true;
    },
    waitedForDatabase: () => dbQueue.queued,
  };
}
