import path from 'node:path';
import { Client } from 'pg';
import { clientPorts, processTree, ROOT, runSvapi } from './proc';

export interface BenchDatabase {
  url: string;
  name: string;
  /** True when this run created it (and drops it at the end unless kept). */
  created: boolean;
  drop(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The URL with `database` as its database, refused unless it points at this machine. */
export function databaseUrl(serverUrl: string, database?: string): string {
  const u = new URL(serverUrl);
  if (!LOOPBACK.has(u.hostname)) throw new Error(`the benchmark runs on loopback only; ${u.hostname} is not`);
  if (database) u.pathname = `/${database}`;
  return u.toString();
}

export const databaseName = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/** The URL without its password, for reports. */
export const redact = (url: string) => {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
};

async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new database on the server, migrated and loaded from seeds/data with the CLI. */
export async function freshSampleDatabase(serverUrl: string, log: (s: string) => void): Promise<BenchDatabase> {
  const name = `svapi_bench_sample_${process.pid}_${Date.now().toString(36)}`;
  const url = databaseUrl(serverUrl, name);
  await withClient(databaseUrl(serverUrl), (c) => c.query(`CREATE DATABASE ${name}`));
  const drop = () => withClient(databaseUrl(serverUrl), (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined);
  try {
    const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' };
    log(`  created ${name}; migrating and loading seeds/data`);
    await runSvapi(['migrate'], env);
    await runSvapi(['load', path.join(ROOT, 'seeds/data')], env);
    await withClient(url, (c) => c.query('ANALYZE'));
  } catch (e) {
    await drop();
    throw e;
  }
  return { url, name, created: true, drop };
}

/** An existing, loaded database (e.g. svapi_scale100): checked, never changed beyond a key. */
export async function existingDatabase(url: string): Promise<BenchDatabase> {
  const name = databaseName(url);
  const counts = await withClient(url, async (c) => {
    const r = await c.query(`SELECT (SELECT count(*) FROM weapons)::int AS weapons, (SELECT count(*) FROM items)::int AS items,
      (SELECT count(*) FROM monsters)::int AS monsters`);
    return r.rows[0] as { weapons: number; items: number; monsters: number };
  }).catch((e: Error) => {
    throw new Error(`database ${name} is not usable (${e.message}); create and load it first (see bench/README.md)`);
  });
  if (!counts.monsters) throw new Error(`database ${name} holds no monsters; load a dataset first`);
  return { url, name, created: false, drop: async () => {} };
}

/** Row counts and the server version, for the report. */
export async function describeDatabase(url: string): Promise<Record<string, string | number>> {
  return withClient(url, async (c) => {
    const v = (await c.query('SHOW server_version')).rows[0].server_version as string;
    const rows = (await c.query(`SELECT relname, n_live_tup::bigint AS n, last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL AS analyzed
      FROM pg_stat_user_tables WHERE relname IN ('weapons','items','monsters','players','hunting_globals')`)).rows;
    const out: Record<string, string | number> = { postgres: v };
    for (const r of rows) out[r.relname] = `${r.n}${r.analyzed ? '' : ' (not analyzed)'}`;
    return out;
  });
}

/**
 * PIDs of the backends serving the connections of `clientPid` and its child processes (a cluster's
 * workers) to the server of `url`, found by the client's ports in pg_stat_activity: only those
 * backends, even when others use the same database at the same time.
 */
export async function backendsOfClient(url: string, clientPid: number): Promise<number[]> {
  const port = Number(new URL(url).port || 5432);
  const ports = processTree(clientPid).flatMap((pid) => clientPorts(pid, port));
  if (!ports.length) return [];
  return withClient(url, async (c) => (await c.query('SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [ports])).rows
    .map((r: { pid: number }) => r.pid));
}
