import type { Knex } from 'knex';
import { Client, type ClientConfig } from 'pg';

/** The pg settings of `knex`'s connections, which knexConfig also keeps in its userParams. */
export function connectionSettings(knex: Knex): ClientConfig {
  const settings = (knex.userParams as { connection?: ClientConfig }).connection;
  if (!settings) throw new Error('no connection settings: the knex was not configured by knexConfig');
  return settings;
}

/**
 * A connected pg Client on the settings of `knex`'s connections, owned by the caller (who ends
 * it): for work that needs the connection itself, as the loader's COPY does inside its knex
 * transaction (knex.transaction's `connection` option runs the transaction on it).
 */
export async function ownClient(knex: Knex): Promise<Client> {
  const client = new Client(connectionSettings(knex));
  // A connection that fails fails the statement running on it; unheard, the event would end the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}
