import type { Knex } from 'knex';
import { Pool } from 'pg';
import { connectionSettings } from './own-client';

/**
 * The service's reads (queries/statements.ts: the operations' reads, key lookups, the readiness
 * check, the data-version poll) run on node-postgres's own Pool, which has all of the process's
 * SVAPI_DB_POOL_MAX connections; knex keeps migrations, the loader and the key commands, and opens
 * no connection on the service's path (its pool of one stays empty there). A pg Pool drops a connection
 * whose statement failed, a client-side time-out included, instead of handing it to the next
 * request; and it reports its figures (totalCount, idleCount, waitingCount) publicly.
 *
 * createKnex puts the pool's size and error handler in the userParams of the knex it makes for the
 * service, beside its connection settings; the pool is made on the first read, so a process that
 * never reads (the cluster primary, the CLI) opens none.
 */
export interface ReadPoolParams {
  max: number;
  onError: (e: Error) => void;
}

const pools = new WeakMap<Knex, Pool>();

function paramsOf(knex: Knex): ReadPoolParams {
  const params = (knex.userParams as { readPool?: ReadPoolParams }).readPool;
  if (!params) throw new Error('no read pool: the knex was not made by createKnex for the service role');
  return params;
}

/** The reads' pool of `knex` (a knex createKnex made for the service role). */
export function readPool(knex: Knex): Pool {
  let pool = pools.get(knex);
  if (pool) return pool;
  const { max, onError } = paramsOf(knex);
  // allowExitOnIdle: a pool left open (a test's knex destroyed without it) never keeps the process alive.
  pool = new Pool({ ...connectionSettings(knex), max, allowExitOnIdle: true });
  // An idle connection that fails (the server restarted) leaves the pool; the next read opens another.
  pool.on('error', onError);
  pools.set(knex, pool);
  return pool;
}

/** Connections the reads of `knex` may open at once: what the DbQueue hands out as slots. */
export function readPoolMax(knex: Knex): number {
  return paramsOf(knex).max;
}

/** The reads' pool in figures; all zero before the first read and after endReadPool. */
export function readPoolFigures(knex: Knex): { used: number; idle: number; waiting: number } {
  const pool = pools.get(knex);
  if (!pool || pool.ended) return { used: 0, idle: 0, waiting: 0 };
  return { used: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/** Closes the reads' pool of `knex`, if it was opened (Database.close does, beside knex.destroy). */
export async function endReadPool(knex: Knex): Promise<void> {
  const pool = pools.get(knex);
  pools.delete(knex);
  if (pool && !pool.ended) await pool.end();
}
