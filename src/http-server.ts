import http from 'node:http';
import type { RequestListener } from 'node:http';
import type { Config } from './config';

/** Idle time a kept-alive connection is held open between requests (Node's default). */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

type ServerTimeouts = Pick<Config, 'SVAPI_HEADERS_TIMEOUT_MS' | 'SVAPI_REQUEST_TIMEOUT_MS'>;

/**
 * The HTTP server with the time-outs of CONTRACT §8, so a slow client cannot hold a connection:
 * the headers must arrive within SVAPI_HEADERS_TIMEOUT_MS and the whole request within
 * SVAPI_REQUEST_TIMEOUT_MS (Node answers 408 and closes the connection), and an idle kept-alive
 * connection closes after KEEP_ALIVE_TIMEOUT_MS. Node checks the first two on an interval
 * (30 s by default), so the interval is shortened to keep the time-outs close to what they say.
 */
export function createHttpServer(app: RequestListener, config: ServerTimeouts): http.Server {
  const headersTimeout = config.SVAPI_HEADERS_TIMEOUT_MS;
  // Node refuses a request time-out shorter than the headers time-out.
  const requestTimeout = Math.max(config.SVAPI_REQUEST_TIMEOUT_MS, headersTimeout);
  const server = http.createServer({
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
  }, app);
  server.keepAliveTimeout = Math.min(KEEP_ALIVE_TIMEOUT_MS, requestTimeout);
  return server;
}
