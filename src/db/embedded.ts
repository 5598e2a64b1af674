import fs from 'node:fs';
import os from 'node:os';
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
  /** Created as a copy of a prepared database (opts.template), already migrated and seeded. */
  fromTemplate: boolean;
  /** The database's files as a tarball, for `loadDataDir` (tests start from migrated copies). */
  dump(): Promise<Blob>;
  stop(): Promise<void>;
}

/** SVAPI_DATA_DIR value for a database that lives in memory only (tests). */
export const MEMORY = ':memory:';
const STATE_FILE = 'svapi-server.json';
const SOCKET_DIR = 'socket';
/** Only names the socket file (`.s.PGSQL.5432`, where pg looks for it): nothing listens on a port. */
const SOCKET_PORT = 5432;
/** Longest Unix socket path Linux accepts (sun_path is 108 bytes with its terminating NUL). */
const SOCKET_PATH_MAX = 107;

interface State {
  pid: number;
  url: string;
  /** The Unix socket the URL names (absent in state files of versions that listened on TCP). */
  socket?: string;
}

/**
 * Serves a PGlite database so the service, the CLI and the tests reach it through the same
 * `pg`/knex code path as a real server. PGlite allows one process per data folder, so a second
 * process (the CLI while the service runs) connects to the first one's socket, named in the state
 * file. A data folder is its owner's only: the folder, its socket's folder and every file in
 * them are owner-only, so no other local user can read the files or connect (PGlite has no
 * passwords). The in-memory database (tests) listens on a loopback port instead. `onOpen` is
 * called before this process opens the data folder, or creates it (both take seconds).
 */
export async function startEmbedded(dataDir: string, opts: { onOpen?: (dir: string, created: boolean) => void; loadDataDir?: Blob; template?: () => string | undefined } = {}): Promise<EmbeddedServer> {
  const inMemory = dataDir === MEMORY;
  const dir = inMemory ? '' : path.resolve(dataDir);
  if (!inMemory) {
    const running = await runningServer(dir);
    if (running) return { url: running, owner: false, created: false, fromTemplate: false, dump: notOwner, stop: async () => {} };
  }
  const created = inMemory || !fs.existsSync(path.join(dir, 'PG_VERSION'));
  // PGlite writes new files with the process's umask, so it is owner-only while PGlite runs.
  const umask = inMemory ? undefined : process.umask(0o077);
  try {
    if (!inMemory) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      restrict(dir, 0o700);
      opts.onOpen?.(dir, created);
    }
    // A new folder starts as a copy of the prepared database, when there is a current one.
    let template = created && !inMemory ? opts.template?.() : undefined;
    try {
      if (template) fs.cpSync(template, dir, { recursive: true });
    } catch {
      // A partial copy is no database: the folder is emptied (it may be a mount point) and created as without one.
      for (const entry of fs.readdirSync(dir)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
      template = undefined;
    }
    // A copy of another database's files (in memory only) skips initdb, which takes seconds.
    const db = await PGlite.create({ dataDir: inMemory ? undefined : dir, loadDataDir: inMemory ? opts.loadDataDir : undefined, extensions: { pg_trgm } });
    // The files PGlite unpacks into a new folder are 0666, as are those of folders made before.
    if (!inMemory) restrictToOwner(dir);
    const socket = inMemory ? undefined : socketPath(dir);
    // PGlite is one session: the socket server multiplexes several client connections onto it.
    const server = new PGLiteSocketServer({
      db,
      ...(socket ? { path: socket.file } : { host: '127.0.0.1', port: 0 }),
      maxConnections: 16,
    });
    await server.start();
    const url = socket
      ? `postgres://postgres@localhost:${SOCKET_PORT}/postgres?host=${encodeURIComponent(socket.dir)}`
      : `postgres://postgres@127.0.0.1:${server.getServerConn().split(':').pop()}/postgres`;
    const stateFile = path.join(dir, STATE_FILE);
    if (!inMemory) fs.writeFileSync(stateFile, JSON.stringify({ pid: process.pid, url, socket: socket!.file } satisfies State), { mode: 0o600 });
    return {
      url,
      owner: true,
      created,
      fromTemplate: Boolean(template),
      dump: () => db.dumpDataDir('none'),
      stop: async () => {
        await server.stop();
        await db.close();
        if (!inMemory) {
          fs.rmSync(stateFile, { force: true });
          fs.rmSync(socket!.temporary ? socket!.dir : socket!.file, { recursive: true, force: true });
          process.umask(umask!);
        }
      },
    };
  } catch (e) {
    if (umask !== undefined) process.umask(umask);
    throw e;
  }
}

const notOwner = () => Promise.reject(new Error('only the process that opened the database can dump it'));

/** Takes group and other permissions off the data folder and everything in it. */
function restrictToOwner(dir: string): void {
  restrict(dir, 0o700);
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const mode = fs.statSync(file).mode & 0o777;
    if (mode & 0o077) restrict(file, mode & 0o700);
  }
}

/**
 * Sets `mode` on a file or folder this user owns. One another user owns keeps the mode its owner
 * gave it: a container image's data folder, owned by root's group and writable by it, for a uid
 * the image does not know (`docker run --user 12345`, as OpenShift runs images), where a chmod
 * fails with EPERM. What this user creates in it is owner-only still.
 */
function restrict(file: string, mode: number): void {
  if (fs.statSync(file).uid === process.getuid?.()) fs.chmodSync(file, mode);
}

/**
 * The socket in an owner-only folder of the data folder, or of the temporary folder when that
 * path would be too long for a Unix socket. A socket file left by a process that died is removed
 * (runningServer found no live server on it).
 */
function socketPath(dataDir: string): { dir: string; file: string; temporary: boolean } {
  const name = `.s.PGSQL.${SOCKET_PORT}`;
  let dir = path.join(dataDir, SOCKET_DIR);
  const temporary = Buffer.byteLength(path.join(dir, name)) > SOCKET_PATH_MAX;
  if (temporary) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-db-'));
  } else {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    restrict(dir, 0o700);
  }
  const file = path.join(dir, name);
  fs.rmSync(file, { force: true });
  return { dir, file, temporary };
}

async function runningServer(dir: string): Promise<string | undefined> {
  let state: State;
  try {
    state = JSON.parse(fs.readFileSync(path.join(dir, STATE_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  if (state.pid === process.pid || !processAlive(state.pid)) return undefined;
  const target = state.socket ? { path: state.socket } : { host: '127.0.0.1', port: Number(new URL(state.url).port) };
  return (await accepts(target)) ? state.url : undefined;
}

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function accepts(target: net.NetConnectOpts): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(target);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
