import net from 'node:net';
import os from 'node:os';
import { DEFAULT_POOL_MAX } from '../config';

/**
 * Whether the Postgres server of `databaseUrl` runs on this machine: a Unix socket, a loopback
 * address, localhost, or an address of one of this machine's interfaces.
 */
export function databaseOnThisHost(databaseUrl: string, ownAddresses: () => string[] = interfaceAddresses): boolean {
  const url = new URL(databaseUrl);
  // `?host=` overrides the URL's host, as in libpq; a path there is a Unix socket's folder.
  const host = (url.searchParams.get('host') ?? decodeURIComponent(url.hostname)).replace(/^\[|\]$/g, '').toLowerCase();
  if (host === '' || host.startsWith('/') || host === 'localhost' || host.endsWith('.localhost')) return true;
  if (net.isIPv4(host)) return host.startsWith('127.') || ownAddresses().includes(host);
  if (net.isIPv6(host)) return host === '::1' || ownAddresses().includes(host);
  return host === os.hostname().toLowerCase();
}

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address.toLowerCase()));
}

/**
 * The database connections per process of `svapi serve` when SVAPI_DB_POOL_MAX is not set.
 * With the server on this machine its cores are the ones the service's processes use too:
 * PostgreSQL's rule of thumb for a server's connections, cores x 2 + 1 (the PostgreSQL wiki's
 * "Number Of Database Connections"; HikariCP's "About Pool Sizing"), shared among the processes,
 * at least 2 each (one query runs while the last one's answer is rendered). More queries at once
 * than that only lengthen each one, and the service's processes wait for the cores with them: on
 * 2 cores, 3 connections a worker instead of 10 made the overload's slowest call and `/healthz`
 * faster, with as many answers a second once the queue refused only past a call's deadline
 * (docs/performance.md, "twenty-third" and "twenty-fourth pass"). Elsewhere the server's cores
 * are unknown: DEFAULT_POOL_MAX.
 */
export function defaultPoolMax(onThisHost: boolean, cores: number, processes: number): number {
  if (!onThisHost) return DEFAULT_POOL_MAX;
  return Math.min(DEFAULT_POOL_MAX, Math.max(2, Math.ceil((2 * cores + 1) / processes)));
}
