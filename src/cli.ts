import { Command, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { loadConfig, configReference, ConfigError, type Config } from './config';
import { openDatabase } from './db/connect';
import { migrateLatest } from './db/migrate';
import { createKey, listKeys, revokeKey } from './auth/keys';
import { loadDataset, DatasetError, type LoadOptions } from './load';
import cluster from 'node:cluster';
import os from 'node:os';
import { createLogger, type Logger } from './log';
import { startServer, SHUTDOWN_GRACE_MS, type RunningServer } from './server';
import { runPrimary, startupLines, SHARED_EMBEDDED_ENV } from './cluster';

const program = new Command('svapi')
  .description('Game data query service: SOAP 1.1/1.2 and HTTP GET/POST over a Postgres database')
  .addHelpText('after', () => `\nEnvironment (validated at start-up):\n${configReference()
    .map((v) => `  ${v.name.padEnd(24)} ${v.description} [default: ${v.default}]`)
    .join('\n')}\n`);

program
  .command('serve')
  .description('start the service (embedded database with sample data when DATABASE_URL is unset)')
  .option('-p, --port <port>', 'port to listen on (overrides PORT)', parsePort)
  .option('-w, --workers [n]', 'serve from n worker processes (node:cluster); default: one per core', parseWorkers)
  .action(async (opts: { port?: number; workers?: number | true }) => {
    const config = withConfig();
    if (opts.port !== undefined) config.PORT = opts.port;
    const logger = createLogger(config.LOG_LEVEL);
    if (cluster.isWorker) return serveWorker(config, logger);
    const workers = typeof opts.workers === 'number' ? opts.workers : os.availableParallelism();
    if (workers > 1) return runPrimary(config, workers, logger);
    const running = await startServer(config, logger);
    process.stdout.write(startupLines({
      url: running.url,
      database: config.DATABASE_URL ? 'DATABASE_URL' : `embedded (${config.SVAPI_DATA_DIR})`,
      demoKey: running.demoKey,
    }));
    stopOnSignal(running, logger);
  });

/** A cluster worker: serves on the primary's port over the database the primary named. */
async function serveWorker(config: Config, logger: Logger): Promise<void> {
  const running = await startServer(config, logger, { sharedEmbedded: process.env[SHARED_EMBEDDED_ENV] === '1' });
  stopOnSignal(running, logger);
}

/**
 * SIGTERM/SIGINT: stop accepting, answer what is in flight, close the pool, exit 0; when that
 * takes longer than SHUTDOWN_GRACE_MS the remaining connections are cut and the exit code is 1.
 */
function stopOnSignal(running: RunningServer, logger: Logger): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    running.shutdown(SHUTDOWN_GRACE_MS).then(
      (inTime) => {
        if (!inTime) logger.warn({ graceMs: SHUTDOWN_GRACE_MS }, 'requests still in flight were cut off');
        process.exit(inTime ? 0 : 1);
      },
      (e: unknown) => {
        logger.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

program
  .command('migrate')
  .description('bring the database schema up to date')
  .action(() => withAdminDb(async (knex) => {
    const applied = await migrateLatest(knex);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema already current');
  }));

program
  .command('load')
  .description('validate a dataset folder of CSV files, then write it in one transaction (or nothing)')
  .argument('<dir>', 'folder of CSV files (see README: dataset format)')
  .option('--replace', 'also remove records of the loaded kinds that the dataset lacks', false)
  .action((dir: string, opts: { replace: boolean }) => withAdminDb(async (knex) => {
    const progress = process.stderr.isTTY ? progressBars() : undefined;
    try {
      const report = await loadDataset(knex, dir, { replace: opts.replace, onProgress: progress?.update });
      progress?.stop();
      console.log(formatReport(report));
    } catch (e) {
      progress?.stop();
      if (e instanceof DatasetError) {
        console.error(e.message);
        process.exitCode = 1;
        return;
      }
      throw e;
    }
  }));

// `svapi generate <dir> --scale N [--seed S]`: a synthetic dataset (src/generate).
import { registerGenerateCommand } from './generate/command';
registerGenerateCommand(program);

const keys = program.command('keys').description('manage developer credentials (DevID/DevKey)');
keys
  .command('create')
  .description('create a credential; the key is shown once and only its hash is stored')
  .requiredOption('--name <name>', 'who the credential is for')
  .option('--json', 'print {"DevID":n,"DevKey":"..."}', false)
  .action((opts: { name: string; json: boolean }) => withAdminDb(async (knex) => {
    const { devId, devKey } = await createKey(knex, opts.name);
    console.log(opts.json ? JSON.stringify({ DevID: devId, DevKey: devKey }) : `DevID:  ${devId}\nDevKey: ${devKey}\n(the key is not shown again)`);
  }));
keys
  .command('list')
  .description('list credentials (never the keys)')
  .option('--json', 'print JSON', false)
  .action((opts: { json: boolean }) => withAdminDb(async (knex) => {
    const all = await listKeys(knex);
    if (opts.json) return console.log(JSON.stringify(all));
    console.log(['DevID\tcreated\t\t\trevoked\t\t\tname', ...all.map((k) => `${k.devId}\t${k.createdAt}\t${k.revokedAt ?? '-\t\t\t'}\t${k.name}`)].join('\n'));
  }));
keys
  .command('revoke')
  .description('revoke a credential (refused everywhere within 5 seconds)')
  .argument('<DevID>', 'the credential to revoke', parseDevId)
  .action((devId: number) => withAdminDb(async (knex) => {
    if (!(await revokeKey(knex, devId))) {
      console.error(`no credential with DevID ${devId}`);
      process.exitCode = 1;
      return;
    }
    console.log(`revoked DevID ${devId}`);
  }));

function withConfig(): Config {
  try {
    return loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
}

async function withAdminDb(fn: (knex: import('knex').Knex) => Promise<void>): Promise<void> {
  const db = await openDatabase(withConfig(), 'admin');
  try {
    await fn(db.knex);
  } finally {
    await db.close();
  }
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new InvalidArgumentError('a port is an integer 0..65535');
  return n;
}

function parseWorkers(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > 256) throw new InvalidArgumentError('workers is an integer 1..256');
  return n;
}

function parseDevId(v: string): number {
  const n = Number(v.trim());
  if (!/^\s*[+-]?\d+\s*$/.test(v) || n < -2147483648 || n > 2147483647) throw new InvalidArgumentError('a DevID is a 32-bit integer');
  return n;
}

function progressBars() {
  const multi = new cliProgress.MultiBar(
    { format: ' {file} {phase} [{bar}] {value}/{total}', hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgress.SingleBar>();
  const update: NonNullable<LoadOptions['onProgress']> = (e) => {
    const key = `${e.file}:${e.phase}`;
    let bar = bars.get(key);
    if (!bar) {
      bar = multi.create(e.total, 0, { file: e.file.padEnd(22), phase: e.phase.padEnd(5) });
      bars.set(key, bar);
    }
    bar.setTotal(e.total);
    bar.update(e.done);
  };
  return { update, stop: () => multi.stop() };
}

function formatReport(report: Awaited<ReturnType<typeof loadDataset>>): string {
  const rows = report.files.map((f) => Object.entries(f).map(([k, v]) => `${k}=${v}`).join(' '));
  return ['loaded:', ...rows.map((r) => `  ${r}`)].join('\n');
}

program.parseAsync(process.argv).catch((e: unknown) => {
  console.error(`svapi: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
