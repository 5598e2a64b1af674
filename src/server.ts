import cluster from 'node:cluster';
import http from 'node:http';
import net from 'node:net';
import type { Config } from './config';
import { createKnex, openDatabase } from './db/connect';
import { demoCredential, type DemoCredential } from './auth/demo-key';
import { createApp } from './app';
import { createHttpServer } from './http-server';
import { acceptOnMoreHandles } from './listen-handles';
import { followPlacement, type WorkerPlacement } from './placement/worker';
import type { LineSink, Logger } from './log';
import { SAMPLE_SEEDING } from '../seeds/sample';

export interface RunningServer {
  url: string;
  server: http.Server;
  /** Printed at start in embedded mode so a newcomer can call the service at once. */
  demoKey?: DemoCredential;
  close(): Promise<void>;
  /**
   * Graceful stop: first SVAPI_DRAIN_MS of /readyz answering 503 while everything is still served
   * (a balancer's health check takes the instance out meanwhile); then no new connections, requests in flight answered (with `Connection: close`),
   * idle kept-alive connections closed, then the pool. True when that took less than `graceMs`;
   * after `graceMs` the remaining connections are cut and the result is false.
   */
  shutdown(graceMs?: number): Promise<boolean>;
}

/**
 * Connections the kernel holds for the service before it accepts them (Node's default is 511;
 * Linux caps it at net.core.somaxconn). A burst of new connections beyond it is dropped at the
 * SYN and the client retries after 1, 3, 7, 15 s: a thousand clients connecting at once waited
 * seconds for their first answer, and /healthz on a new connection as long.
 */
export const LISTEN_BACKLOG = 4096;

/** How long a graceful stop waits for requests in flight before cutting connections. */
export const SHUTDOWN_GRACE_MS = 10_000;

interface StartOptions {
  /** DATABASE_URL is an embedded database that another svapi process (the cluster primary) owns. */
  sharedEmbedded?: boolean;
  /** Told what a first start of the embedded database does meanwhile (see openDatabase). */
  report?: (line: string) => void;
  /** Where the access log's lines go (a line per request); none: no access log. */
  accessLog?: LineSink;
}

export async function startServer(config: Config, logger: Logger, opts: StartOptions = {}): Promise<RunningServer> {
  const db = await openDatabase(config, 'service', { ...opts, seed: SAMPLE_SEEDING });
  let demoKey: RunningServer['demoKey'];
  if (db.embedded?.owner) {
    const admin = createKnex(db.embedded.url, 'admin', config, true);
    try {
      demoKey = await demoCredential(admin, config.SVAPI_DATA_DIR);
    } finally {
      await admin.destroy();
    }
  }
  const { app, stop, drain, waitedForDatabase } = await createApp({ config, db, logger, accessLog: opts.accessLog });
  const server = createHttpServer(app, config);
  let stopping = false;
  let placement: WorkerPlacement | undefined;
  // Once stopping, every answer closes its connection, so no client reuses it for a new request;
  // so does one that placement moves to another worker.
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (stopping || placement?.closes(req.socket)) res.setHeader('Connection', 'close');
  });
  const listen = () => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: config.PORT, host: config.HOST, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await listen();
  // From now on an error of the listening socket (an accept that failed, say for want of file
  // descriptors, or placement listening again) is logged and the worker goes on serving.
  server.on('error', (e: Error) => logger.error({ err: e }, 'listening socket error'));
  // A worker that accepts its own connections takes a burst of them in faster on more handles.
  const ownAccepts = cluster.isWorker && config.SVAPI_CLUSTER_SCHEDULING !== 'rr';
  let closeMoreHandles = ownAccepts ? acceptOnMoreHandles(server, LISTEN_BACKLOG) : () => {};
  if (ownAccepts && config.SVAPI_CLUSTER_SCHEDULING !== 'none') {
    placement = followPlacement(server, {
      accept: async () => {
        await listen();
        closeMoreHandles = acceptOnMoreHandles(server, LISTEN_BACKLOG);
      },
      refuse: () => {
        closeMoreHandles();
        // net's close, not http's: http's also closes the idle kept-alive connections, and a client
        // may be sending its next request on one just then (it would see the connection reset);
        // and stops the headers and request time-out checks, which these connections still need.
        // They close after their next answer instead (placement.closes).
        net.Server.prototype.close.call(server);
      },
      waitedForDatabase,
    });
  }
  const closeServer = () => {
    placement?.stop();
    closeMoreHandles();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  return {
    url: config.SVAPI_PUBLIC_URL ?? `http://${host}:${port}`,
    server,
    demoKey,
    close: async () => {
      await closeServer();
      await stop();
      await db.close();
    },
    shutdown: async (graceMs = SHUTDOWN_GRACE_MS) => {
      drain();
      if (config.SVAPI_DRAIN_MS > 0) await new Promise((resolve) => setTimeout(resolve, config.SVAPI_DRAIN_MS));
      stopping = true;
      const closed = closeServer();
      // A connection between two requests is closed now; one with a request in flight after
      // its answer (Connection: close above, and this sweep for any that went idle meanwhile).
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([
        closed.then(() => true),
        new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), graceMs); }),
      ]);
      clearTimeout(timer);
      clearInterval(sweep);
      if (!inTime) {
        server.closeAllConnections();
        await closed;
      }
      await stop();
      await db.close();
      return inTime;
    },
  };
}
