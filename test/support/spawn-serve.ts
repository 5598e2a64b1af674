import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { createKey } from '../../src/auth/keys';
import { ROOT, SVAPI_SOURCE } from './cli';
import { freshDatabase, type TestDatabase } from './db';

export interface SpawnedServe {
  child: ChildProcess;
  url: string;
  db: TestDatabase;
  key: { devId: number; devKey: string };
  /** JSON log lines the process (and its workers) wrote to stdout so far. */
  log: Record<string, unknown>[];
  /** The other lines it wrote to stdout so far (the start-up banner). */
  lines: string[];
  /** The first line of `lines` that `match` takes, once it is written; rejects if the process exits first. */
  line(match: (line: string) => boolean): Promise<string>;
  /** How the process ended, once it has and everything it (and its workers) wrote to stdout has been read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/**
 * `svapi serve ...args` (from source unless `opts.svapi` says otherwise, see support/cli.ts) on a
 * port of its own over a fresh seeded database, or over the database (and key) of another one
 * (`opts.over`: a second instance; stop() leaves it). Without DATABASE_URL in the test environment
 * the database is an embedded one in another process, which the service is told it shares (as a
 * cluster worker is). `opts.prefix`: a command that runs node in its place, keeping its pid (as
 * `taskset -c 0` does).
 */
export async function spawnServe(
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  opts: { over?: Pick<SpawnedServe, 'db' | 'key'>; svapi?: string[]; prefix?: string[] } = {},
): Promise<SpawnedServe> {
  const { over, svapi = SVAPI_SOURCE, prefix = [] } = opts;
  const db = over?.db ?? await freshDatabase({ seed: true });
  const key = over?.key ?? await createKey(db.knex, 'spawned');
  const [command, ...argv] = [...prefix, process.execPath, ...svapi, 'serve', ...args];
  const child = spawn(command, argv, {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      ...(db.embedded ? { SVAPI_SHARED_EMBEDDED: '1' } : {}),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SVAPI_RATE_LIMIT: '1000000',
      SVAPI_DB_POOL_MAX: '4',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // 'close', not 'exit': 'exit' may come before the last lines in the pipe are read, and the
  // tests read the log once the process is gone.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const log: Record<string, unknown>[] = [];
  const lines: string[] = [];
  const stdout = readline.createInterface({ input: child.stdout! });
  stdout.on('line', (line) => {
    if (line.startsWith('{')) log.push(JSON.parse(line));
    else lines.push(line);
  });
  const line = (match: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const found = lines.find(match);
      if (found !== undefined) return resolve(found);
      const take = (l: string) => {
        if (!l.startsWith('{') && match(l)) {
          stdout.off('line', take);
          resolve(l);
        }
      };
      stdout.on('line', take);
      void exited.then(({ code }) => reject(new Error(`svapi serve exited with ${code}; its lines:\n${lines.join('\n')}`)));
    });
  const url = (await line((l) => l.startsWith('svapi listening on '))).slice('svapi listening on '.length).split(' ')[0];
  return {
    child,
    url,
    db,
    key,
    log,
    lines,
    line,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      if (!over) await db.destroy();
    },
  };
}
