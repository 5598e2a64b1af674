import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import type { Config } from './config';
import { createKnex, openDatabase, type Database } from './db/connect';
import { demoCredential } from './auth/demo-key';
import type { Logger } from './log';
import { LISTEN_BACKLOG, SHUTDOWN_GRACE_MS } from './server';
import { holdHostCounts } from './auth/limit-store';
import { aggregateWorkerMetrics } from './metrics-cluster';
import { lendListenHandles } from './listen-handles';
import { placeConnections } from './placement/primary';
import { startupLines, type StartupInfo } from './startup-lines';
import { SAMPLE_SEEDING } from '../seeds/sample';

/**
 * The workers' V8 heap. With V8's defaults a worker's RSS reached 300-310 MB under 1,024
 * connections of 1,000-item answers (test/load-shedding.test.ts, Postgres, pool 10): mostly
 * garbage V8 had not yet collected, since the old space may grow to gigabytes on this machine.
 * The old space is bounded at 128 MB plus SVAPI_CACHE_MB. The semi-spaces are 32 MB: an
 * uncached 100-record answer allocates about 0.9 MB and is in flight for tens of milliseconds at
 * 64 connections, so with 8 MB a scavenge came every 20 ms, a quarter of the young objects were
 * still in flight and promoted, and the old space needed a full collection every 150 ms (GC a
 * third of a worker's CPU). Allocation-site pretenuring is off: under that load V8 decides to
 * tenure some allocation sites of answers in flight, whose objects, made in the old space, keep
 * the young ones they point to alive through every scavenge until the next full collection
 * (3-5 MB promoted per scavenge, against 40 KB without it). docs/performance.md, issue 18,
 * fourth pass. The old space may grow to twice what the last full collection left before the
 * next one: V8 grows a heap bounded this low by 1.1-1.3x, and under uncached load, where answers
 * in flight promote 2-3 MB a second, a worker then marked its 35 MB of live objects every 0.8 s
 * (12 mark-compacts in 10 s for two workers, 1.7 s of concurrent marking), against 3 and 0.3 s
 * at 2x. An operator's own flag (NODE_OPTIONS or node's arguments) wins.
 */
const WORKER_SEMI_SPACE_MB = 32;
const WORKER_OLD_SPACE_MB = 128;
const WORKER_HEAP_GROWING_PERCENT = 100;

/**
 * The V8 flag an argument sets, in any of node's spellings: `--max-semi-space-size=8`,
 * `--max_semi_space_size=8`, and `--no-x` for `--x`.
 */
const flagName = (arg: string) => /^--([\w-]+)/.exec(arg)?.[1].replace(/_/g, '-').replace(/^no-/, '');

/** The heap flags the workers start with, but those the operator already gives. */
export function workerHeapFlags(cacheMb: number, execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map(flagName));
  const flags = [
    `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`,
    `--max-old-space-size=${WORKER_OLD_SPACE_MB + cacheMb}`,
    '--no-allocation-site-pretenuring',
    `--heap-growing-percent=${WORKER_HEAP_GROWING_PERCENT}`,
  ];
  return flags.filter((flag) => !given.has(flagName(flag)));
}

/** PGlite is single-threaded: more processes than this over the embedded database gain nothing. */
const EMBEDDED_MAX_WORKERS = 4;
/** Connections the embedded socket server accepts (src/db/embedded.ts), less room for the CLI. */
const EMBEDDED_CONNECTIONS = 12;
/** Set in a worker's environment when DATABASE_URL is the primary's embedded database. */
export const SHARED_EMBEDDED_ENV = 'SVAPI_SHARED_EMBEDDED';

/**
 * The cluster primary of `svapi serve --workers N`: owns the embedded database when there is
 * one (so a single process opens PGlite) and hands its URL to the workers, prints the start-up
 * lines once, restarts a worker that dies unexpectedly, and on SIGTERM/SIGINT forwards SIGTERM
 * to the workers and exits when they all have (0 when they all stopped cleanly).
 */
export async function runPrimary(config: Config, requested: number, logger: Logger, report?: (line: string) => void): Promise<void> {
  let db: Database | undefined;
  let demoKey: StartupInfo['demoKey'];
  let workers = requested;
  // The pool as decided here (cli.ts: its default depends on the workers).
  const env: NodeJS.ProcessEnv = { PORT: String(config.PORT), SVAPI_DB_POOL_MAX: String(config.SVAPI_DB_POOL_MAX) };
  if (!config.DATABASE_URL) {
    workers = Math.min(requested, EMBEDDED_MAX_WORKERS);
    db = await openDatabase(config, 'service', { report, seed: SAMPLE_SEEDING });
    await db.knex.destroy();
    const url = db.embedded!.url;
    if (db.embedded!.owner) {
      const admin = createKnex(url, 'admin', config, true);
      try {
        demoKey = await demoCredential(admin, config.SVAPI_DATA_DIR);
      } finally {
        await admin.destroy();
      }
    }
    Object.assign(env, {
      DATABASE_URL: url,
      [SHARED_EMBEDDED_ENV]: '1',
      SVAPI_DB_POOL_MAX: String(Math.max(1, Math.min(config.SVAPI_DB_POOL_MAX, Math.floor(EMBEDDED_CONNECTIONS / workers)))),
    });
  }

  let stopping = false;
  let printed = false;
  let listening = 0;
  let failed = false;
  const listened = new WeakSet<Worker>();
  // Fixed at the first fork. With round-robin the primary hands each new connection to a worker
  // and waits for that worker's event loop to take it before the next: under load a burst of new
  // connections (and /healthz behind them) waited seconds there (README: Overload).
  cluster.schedulingPolicy = config.SVAPI_CLUSTER_SCHEDULING === 'rr' ? cluster.SCHED_RR : cluster.SCHED_NONE;
  cluster.setupPrimary({ execArgv: [...process.execArgv, ...workerHeapFlags(config.SVAPI_CACHE_MB, process.execArgv, process.env.NODE_OPTIONS)] });
  const fork = () => cluster.fork(env);

  cluster.on('listening', (worker, address: AddressInfo | { port: number; address: string | null }) => {
    listened.add(worker);
    // Printed once, when the first `workers` processes all serve.
    if (printed || ++listening < workers) return;
    printed = true;
    const host = !address.address || config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
    process.stdout.write(startupLines({
      url: config.SVAPI_PUBLIC_URL ?? `http://${host}:${address.port}`,
      listening: { host: config.HOST, port: address.port },
      database: config.DATABASE_URL ? 'DATABASE_URL' : `embedded (${config.SVAPI_DATA_DIR})`,
      demoKey,
      workers,
    }));
  });

  const finish = async (code: number) => {
    await db?.close().catch(() => {});
    process.exit(code);
  };

  cluster.on('exit', (worker, code, signal) => {
    if (!stopping) {
      if (!listened.has(worker)) {
        // It never served: restarting would only repeat the failure (port taken, bad database).
        logger.fatal({ workerPid: worker.process.pid, code, signal }, 'worker failed to start');
        stop(true);
        return;
      }
      logger.warn({ workerPid: worker.process.pid, code, signal }, 'worker died; starting another');
      fork();
      return;
    }
    if (code !== 0) failed = true;
    if (Object.keys(cluster.workers ?? {}).length === 0) void finish(failed ? 1 : 0);
  });

  const stop = (fatal = false) => {
    if (fatal) failed = true;
    if (stopping) return;
    stopping = true;
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
    if (alive.length === 0) void finish(failed ? 1 : 0);
    for (const w of alive) w.process.kill('SIGTERM');
    // Each worker drains for SVAPI_DRAIN_MS, then gives its requests SHUTDOWN_GRACE_MS; a worker
    // still there later is killed.
    setTimeout(() => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
      void finish(1);
    }, config.SVAPI_DRAIN_MS + SHUTDOWN_GRACE_MS + 2_000).unref();
  };
  process.on('SIGTERM', () => stop());
  process.on('SIGINT', () => stop());

  // The host's limit counters and the sum of the workers' metrics live here (README: Deployment).
  holdHostCounts();
  aggregateWorkerMetrics();
  if (cluster.schedulingPolicy === cluster.SCHED_NONE) lendListenHandles(LISTEN_BACKLOG);
  const placing = config.SVAPI_CLUSTER_SCHEDULING;
  if (placing === 'adaptive' || placing === 'pack') placeConnections(logger, { pack: placing === 'pack' });
  for (let i = 0; i < workers; i++) fork();
}
