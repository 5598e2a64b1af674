import type { Knex } from 'knex';
import { readPool } from '../read-pool';

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

/** A statement as readRows sends it (to the listeners given to onRead). */
export interface SentStatement {
  readonly text: string;
  readonly values: readonly unknown[];
  /** Its prepared statement's name, when it runs as one. */
  readonly name?: string;
}

const listeners = new WeakMap<Knex, Set<(s: SentStatement) => void>>();

/**
 * Tells `listener` every statement readRows sends for `knex` (npm run explain reads the
 * statements from it, a test the statement of an answer); returns the function that stops it.
 */
export function onRead(knex: Knex, listener: (s: SentStatement) => void): () => void {
  let set = listeners.get(knex);
  if (!set) listeners.set(knex, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * Runs `statement` on a connection of the service's read pool (db/read-pool.ts) and returns its
 * rows as arrays, the columns in the order of its select list. Knex builds no SQL here, and pg
 * makes no object per row: on an answer of 100 globals that was a third of the service's CPU.
 * The time-outs are the connection's (db/connect.ts); a connection whose statement failed is
 * dropped by the pool rather than handed to the next read.
 */
export async function readRows(knex: Knex, statement: Statement, values: readonly unknown[]): Promise<unknown[][]> {
  // userParams: knex's public place for settings of one's own, given to knex() (db/connect.ts).
  const name = statement.name && knex.userParams.namedStatements ? `svapi_${statement.name}` : undefined;
  const told = listeners.get(knex);
  if (told?.size) for (const listener of told) listener({ text: statement.text, values, name });
  const result = await readPool(knex).query<unknown[]>({ name, text: statement.text, values: values as unknown[], rowMode: 'array' });
  return result.rows;
}
