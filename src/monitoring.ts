import type { Knex } from 'knex';
import type { LimitStore } from './auth/limit-store';
import { readSchemaIsCurrent } from './db/queries/schema';
import { sendBody, type Res } from './http/exchange';
import type { Metrics } from './metrics';
import type { PageHandler } from './http/router';

/** A plain-text answer with its length (a HEAD gets the headers alone). */
function sendText(res: Res, status: number, contentType: string, text: string): void {
  sendBody(res, status, contentType, text);
}

const TEXT = 'text/plain; charset=utf-8';

/** `GET /healthz`: liveness, `ok` while the process answers at all. */
export const healthz: PageHandler = (_req, res) => sendText(res, 200, TEXT, 'ok');

/**
 * `GET /readyz`: 200 while the database is reachable and its schema current, 503 once `draining()`
 * (shutting down, so a balancer stops sending requests here). Limits counted on the host while
 * Redis is away do not make the service unready; the answer says so.
 */
export function readyz(knex: Knex, limits: LimitStore, draining: () => boolean): PageHandler {
  return async (_req, res) => {
    if (draining()) return sendText(res, 503, TEXT, 'shutting down');
    try {
      const current = await readSchemaIsCurrent(knex);
      const detail = limits.describe();
      sendText(res, current ? 200 : 503, TEXT, `${current ? 'ready' : 'schema not current'}${detail ? `\n${detail}\n` : ''}`);
    } catch {
      sendText(res, 503, TEXT, 'database unreachable');
    }
  };
}

/** `GET /metrics`: the Prometheus text of this process (of the whole cluster on a worker: metrics.ts). */
export function metricsPage(metrics: Metrics): PageHandler {
  return async (_req, res) => sendText(res, 200, metrics.registry.contentType, await metrics.scrape());
}
