import type { Knex } from 'knex';

/** Runs one SQL text on one session: a pg Client, or a knex transaction. */
export type RunSql = (sql: string) => Promise<{ rows: Record<string, string>[] }>;

/**
 * The plan Postgres may settle on for a named statement (db/queries/statements.ts) after its
 * first executions: prepared, with plan_cache_mode = force_generic_plan, so the plan is made
 * without the values. `sql` is in the server's form ($1, $2, ...); `explain` is EXPLAIN's option
 * list, e.g. '(ANALYZE, BUFFERS)'. Every setting is undone before it returns.
 */
export async function genericPlan(run: RunSql, knex: Knex, sql: string, bindings: readonly unknown[], explain = ''): Promise<string[]> {
  await run('SET plan_cache_mode = force_generic_plan');
  try {
    await run(`PREPARE generic_plan_probe AS ${sql}`);
    try {
      // EXECUTE takes no bind parameters: the values as literals.
      const values = bindings.map((b) => knex.raw('?', [b as Knex.Value]).toQuery()).join(', ');
      return (await run(`EXPLAIN ${explain} EXECUTE generic_plan_probe(${values})`)).rows.map((r) => r['QUERY PLAN']);
    } finally {
      await run('DEALLOCATE generic_plan_probe');
    }
  } finally {
    await run('RESET plan_cache_mode');
  }
}
