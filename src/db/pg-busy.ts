/**
 * True for a pg client that still has a statement outstanding. pg (8.x) has no public accessor
 * for this: its `activeQuery` and `queryQueue` getters are deprecated (removed in pg@9) in favour
 * of the private fields read here, and neither knex nor pg-pool reports a client-side query
 * time-out on the connection. This is the one place that reads pg's internals; db/connect.ts
 * uses it to drop such a connection instead of handing it to the next request.
 */
export function pgClientBusy(connection: unknown): boolean {
  const c = connection as { _getActiveQuery?: () => unknown; _queryQueue?: unknown[] };
  return Boolean(c._getActiveQuery?.()) || (c._queryQueue?.length ?? 0) > 0;
}
