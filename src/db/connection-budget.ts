import type { Knex } from 'knex';
import type { Logger } from '../log';

interface ConnectionPlan {
  instances: number;
  workers: number;
  poolMax: number;
}

interface ConnectionBudget {
  /** Connections the plan may open: its pools, and one LISTEN connection per process. */
  needed: number;
  /** What the server lets a non-superuser open: max_connections less the reserved ones. */
  available: number;
}

/** Connections a process may hold: its pool (db/read-pool.ts), and the answer cache's LISTEN connection. */
const connectionsPerProcess = (poolMax: number) => poolMax + 1;

/** What the plan needs against what the Postgres server at `knex` allows. */
export async function connectionBudget(knex: Knex, plan: ConnectionPlan): Promise<ConnectionBudget> {
  const { rows } = await knex.raw(`SELECT current_setting('max_connections')::int AS max,
    current_setting('superuser_reserved_connections')::int AS reserved`);
  const { max, reserved } = rows[0] as { max: number; reserved: number };
  return {
    needed: plan.instances * plan.workers * connectionsPerProcess(plan.poolMax),
    available: max - reserved,
  };
}

/**
 * At `serve` start-up: warns (the service still starts; pools open connections only as load
 * needs them) when instances x workers x (pool + 1) exceeds what the server allows, since under
 * full load some requests would then wait for a connection, or fail to get one.
 */
export async function warnIfOverBudget(knex: Knex, plan: ConnectionPlan, logger: Logger): Promise<ConnectionBudget | undefined> {
  let budget: ConnectionBudget;
  try {
    budget = await connectionBudget(knex, plan);
  } catch (e) {
    // The database may be away at start-up: the service starts anyway and reports it on /readyz.
    logger.debug({ err: e }, 'connection budget not checked');
    return undefined;
  }
  if (budget.needed > budget.available) {
    logger.warn({ ...plan, ...budget },
      'more database connections planned than the server allows: lower SVAPI_DB_POOL_MAX or --workers, or raise max_connections (SVAPI_INSTANCES says how many instances share the database)');
  }
  return budget;
}
