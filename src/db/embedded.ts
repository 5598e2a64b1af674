import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

// The extension's typings are ESM-only; its CommonJS build is what Node loads here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: import('@electric-sql/pglite').Extension };

export interface EmbeddedServer {
  url: string;
  /** True when this process opened the data folder (false: another svapi process serves it). */
  owner: boolean;
  /** True when the data folder did not exist before: the caller migrates and seeds it. */
  created: boolean;
  stop(): Promise<void>;
}

/** SVAPI_DATA_DIR value for a database that lives in memory only (tests). */
export const MEMORY = ':memory:';
const STATE_FILE = 'svapi-server.json';

/**
 * Serves a PGlite database on a loopback port so the service, the CLI and the tests reach it
 * through the same `pg`/knex code path as a real server. PGlite allows one process per data
 * folder, so a second process (the CLI while the service runs) connects to the first one's port.
 * `onOpen` is called before this process opens the data folder, or creates it (both take seconds).
 */
export async function startEmbedded(dataDir: string, opts: { onOpen?: (dir: string, created: boolean) => void } = {}): Promise<EmbeddedServer> {
  const inMemory = dataDir === MEMORY;
  const dir = inMemory ? '' : path.resolve(dataDir);
  if (!inMemory) {
    const running = await runningServer(dir);
    if (running) return { url: running, owner: false, created: false, stop: async () => {} };
  }
  const created = inMemory || !fs.existsSync(path.join(dir, 'PG_VERSION'));
  if (!inMemory) fs.mkdirSync(dir, { recursive: true });
  if (!inMemory) opts.onOpen?.(dir, created);
  const db = await PGlite.create({ dataDir: inMemory ? undefined : dir, extensions: { pg_trgm } });
  // PGlite is one session: the socket server multiplexes several client connections onto it.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const port = (server.getServerConn().split(':').pop() ?? '');
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stateFile = path.join(dir, STATE_FILE);
  if (!inMemory) fs.writeFileSync(stateFile, JSON.stringify({ pid: process.pid, url }));
  return {
    url,
    owner: true,
    created,
    stop: async () => {
      await server.stop();
      await db.close();
      if (!inMemory) fs.rmSync(stateFile, { force: true });
    },
  };
}

async function runningServer(dir: string): Promise<string | undefined> {
  let state: { pid: number; url: string };
  try {
    state = JSON.parse(fs.readFileSync(path.join(dir, STATE_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  if (state.pid === process.pid || !processAlive(state.pid)) return undefined;
  const { port } = new URL(state.url);
  return (await accepts(Number(port))) ? state.url : undefined;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
