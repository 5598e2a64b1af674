// Tests that need a Postgres server (a second session, LISTEN/NOTIFY, pg_terminate_backend): defined
// only when DATABASE_URL names one. On the embedded database they are not defined rather than
// skipped: no tool is missing there, the server run (CI runs both) covers them, and CI fails on
// any skipped test (.ci/run).

export function onServer(name: string, fn: jest.ProvidesCallback, timeout?: number): void {
  if (process.env.DATABASE_URL) test(name, fn, timeout);
}
