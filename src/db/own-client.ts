import type { Knex } from 'knex';
import { Client, type ClientConfig } from 'pg';

const settingsOf = new WeakMap<Knex, ClientConfig>();

/** Called by createKnex: the pg settings of its connections, for ownClient. */
export function rememberSettings(knex: Knex, settings: ClientConfig): void {
  settingsOf.set(knex, settings);
}

/**
 * A connected pg Client on the settings of `knex`'s connections, owned by the caller (who ends
 * it): for work that needs the connection itself, as the loader's COPY does inside its knex
 * transaction (knex.transaction's `connection` option runs the transaction on it).
 */
export async function ownClient(knex: Knex): Promise<Client> {
  const settings = settingsOf.get(knex);
  if (!settings) throw new Error('no connection settings: the knex was not made by createKnex');
  const client = new Client(settings);
  // A connection that fails fails the statement running on it; unheard, the event would end the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}
