import type { Knex } from 'knex';
import type { Client } from 'pg';

/** A read of fixed SQL text with `$1, $2, ...` parameters, written once when its module loads. */
export interface Statement {
  readonly text: string;
  /**
   * Set for a statement whose best plan does not depend on its values. On a Postgres server each
   * pooled connection then prepares it once, as `svapi_<name>`, and afterwards only binds and
   * executes it: planning these reads took 3 to 7 times as long as running them (npm run
   * explain, which shows the generic plan Postgres may settle on for each). Left unnamed on the
   * embedded database (see db/connect.ts) and with SVAPI_DB_NAMED_STATEMENTS=false. Word searches
   * have none: their best plan depends on the word.
   */
  readonly name?: string;
}

/**
 * Runs `statement` on a connection of knex's pool and returns its rows as arrays, the columns in
 * the order of its select list. Knex builds no SQL here, and pg makes no object per row: on an
 * answer of 100 globals that was a third of the service's CPU. The pool, its checks and the
 * time-outs are knex's and pg's as for any other query; knex's 'query' event is emitted as
 * knex does (npm run explain reads the statements from it).
 */
export async function readRows(knex: Knex, statement: Statement, values: readonly unknown[]): Promise<unknown[][]> {
  // userParams: knex's public place for settings of one's own, given to knex() (db/connect.ts).
  const name = statement.name && knex.userParams.namedStatements ? `svapi_${statement.name}` : undefined;
  const connection: Client = await knex.client.acquireConnection();
  try {
    knex.client.emit('query', { method: 'raw', sql: statement.text, bindings: values, options: name ? { name } : {} });
    const result = await connection.query<unknown[]>({ name, text: statement.text, values: values as unknown[], rowMode: 'array' });
    return result.rows;
  } finally {
    await knex.client.releaseConnection(connection);
  }
}
