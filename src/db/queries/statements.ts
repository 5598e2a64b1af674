import type { Knex } from 'knex';

/**
 * Query options that name a statement of fixed text. On a Postgres server each pooled connection
 * then prepares it once and afterwards only binds and executes it: planning these reads took
 * 3 to 7 times as long as running them (npm run explain). Left unnamed on the embedded database
 * (see db/connect.ts), and not used for word searches, whose best plan depends on the word.
 *
 * The text must be the same on every call under one name; `npm run explain` shows the generic
 * plan Postgres may settle on for each named statement.
 */
export function named(knex: Knex, name: string): Readonly<{ name?: string }> {
  // userParams: knex's public place for settings of one's own, given to knex() (db/connect.ts).
  return knex.userParams.namedStatements ? { name: `svapi_${name}` } : {};
}
