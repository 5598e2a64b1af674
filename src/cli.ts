import { Command, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, settingGiven, loadDatabaseConfig, environmentHelp, ConfigError, CONFIG_EXIT_CODE, DATABASE_SETTINGS, type Config, type DatabaseConfig } from './config';
import { createKnex, databaseLocation, DatabaseUnreachableError, openDatabase, requireReachable } from './db/connect';
import { warnIfOverBudget } from './db/connection-budget';
import { migrateLatest, requireCurrentSchema } from './db/migrate';
import { waitForServer } from './db/wait-for-server';
import { PACKAGE_ROOT } from './package-root';
import { createKey, listKeys, revokeKey, type DevKeyInfo } from './auth/keys';
import { loadDataset, holdsNoRecords, DatasetError, type LoadOptions } from './load';
import { datasetHelp } from './load/help';
import cluster from 'node:cluster';
import { usableCores } from './cpu-quota';
import { databaseOnThisHost, defaultPoolMax } from './db/pool-size';
import { createAccessLog, createLogger, type Logger } from './log';
import type { RunningServer } from './server';
import { registerGenerateCommand } from './generate/command';
import { registerCompareCommand } from './compare/command';
import { isXsdInt } from './xsd/values';

const { version } = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };

const program = new Command('svapi')
  .description('Game data query service: SOAP 1.1/1.2, HTTP GET/POST and JSON over a Postgres database')
  .version(version, '-V, --version', 'print the version')
  // A bad option or argument is a configuration mistake, as a bad setting is: one exit code for
  // both (commander's own is 1). Set before the commands, which inherit it.
  .exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : CONFIG_EXIT_CODE))
  .addHelpText('after', () => environmentHelp());

/**
 * The service's modules, loaded by `serve` only: importing the HTTP server and its bindings is
 * over a third of a short command's CPU time (an hourly `load` of 10,000 globals).
 */
function serveModules() {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    ...(require('./server') as typeof import('./server')),
    ...(require('./cluster') as typeof import('./cluster')),
    ...(require('./startup-lines') as typeof import('./startup-lines')),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** What opening (or first creating) the embedded database is doing, on stderr: stdout stays the command's answer. */
const report = (line: string) => process.stderr.write(`${line}\n`);

program
  .command('serve')
  .description('start the service (embedded database with sample data when DATABASE_URL is unset)')
  .option('-p, --port <port>', 'port to listen on (overrides PORT)', parsePort)
  .option('-w, --workers [n]', 'serve from n worker processes (node:cluster); default: one per core it may use (a cgroup CPU quota counts); 1: a single process', parseWorkers)
  .addHelpText('after', () => environmentHelp())
  .action(async (opts: { port?: number; workers?: number | true }) => {
    const config = withConfig();
    if (opts.port !== undefined) config.PORT = opts.port;
    const logger = createLogger(config.LOG_LEVEL);
    const { runPrimary, startServer, startupLines } = serveModules();
    if (cluster.isWorker) return serveWorker(config, logger);
    // Read once: each reading goes through the cgroup files (cpu-quota.ts).
    const cores = usableCores();
    const workers = typeof opts.workers === 'number' ? opts.workers : cores;
    if (config.DATABASE_URL) {
      const chosen = !settingGiven('SVAPI_DB_POOL_MAX');
      const onThisHost = databaseOnThisHost(config.DATABASE_URL);
      if (chosen) config.SVAPI_DB_POOL_MAX = defaultPoolMax(onThisHost, cores, workers);
      await checkServerDatabase(config, workers, logger);
      if (chosen) logger.info({ poolMax: config.SVAPI_DB_POOL_MAX, databaseOnThisHost: onThisHost, cores, workers }, 'database connections per process (SVAPI_DB_POOL_MAX unset)');
    }
    // Only `--workers 1` is a single process: one core by default still gets a primary and one
    // worker, as a single process has neither the worker's bounded heap nor its 64 more listening
    // handles, and under overload its callers waited up to 7.8 s and /healthz 7.7 s
    // (docs/performance.md, "eleventh pass").
    if (opts.workers !== 1) return runPrimary(config, workers, logger, report);
    const running = await startServer(config, logger, { report, accessLog: createAccessLog(config.LOG_LEVEL) });
    const address = running.server.address();
    process.stdout.write(startupLines({
      url: running.url,
      listening: { host: config.HOST, port: typeof address === 'object' && address ? address.port : config.PORT },
      database: config.DATABASE_URL ? 'DATABASE_URL' : `embedded (${config.SVAPI_DATA_DIR})`,
      demoKey: running.demoKey,
    }));
    stopOnSignal(running, logger);
  });

/**
 * Before serving from a Postgres server: refuses (exit 1) a database that says no to the
 * connection (no such database, wrong credentials) or lacks the schema, as `load` and `keys` do;
 * warns when the planned connections exceed its max_connections (README: Deployment). A server
 * not reachable yet is not refused: the service starts and /readyz says when it is reachable.
 */
async function checkServerDatabase(config: Config, workers: number, logger: Logger): Promise<void> {
  // Silent: its connection trouble is said below, once.
  const knex = createKnex(config.DATABASE_URL!, 'service', { ...config, SVAPI_DB_POOL_MAX: 1, LOG_LEVEL: 'silent' }, false);
  try {
    await requireReachable(knex, databaseLocation(config));
    await requireCurrentSchema(knex, databaseLocation(config));
    await warnIfOverBudget(knex, { instances: config.SVAPI_INSTANCES, workers, poolMax: config.SVAPI_DB_POOL_MAX }, logger);
  } catch (e) {
    if (!(e instanceof DatabaseUnreachableError) || e.refused) throw e;
    logger.warn(`${e.message}; starting anyway (/readyz answers 503 until it is reachable)`);
  } finally {
    await knex.destroy();
  }
}

/** A cluster worker: serves on the primary's port over the database the primary named. */
async function serveWorker(config: Config, logger: Logger): Promise<void> {
  const { startServer, SHARED_EMBEDDED_ENV } = serveModules();
  const running = await startServer(config, logger, { sharedEmbedded: process.env[SHARED_EMBEDDED_ENV] === '1', accessLog: createAccessLog(config.LOG_LEVEL) });
  stopOnSignal(running, logger);
}

/**
 * SIGTERM/SIGINT: stop accepting, answer what is in flight, close the pool, exit 0; when that
 * takes longer than SHUTDOWN_GRACE_MS the remaining connections are cut and the exit code is 1.
 */
function stopOnSignal(running: RunningServer, logger: Logger): void {
  const { SHUTDOWN_GRACE_MS } = serveModules();
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
  .description('bring the database schema up to date (what `npx knex migrate:latest` does too)')
  .option('--wait <seconds>', 'with DATABASE_URL: first wait up to this long for a server that is still starting to accept connections (docker-compose.yml)', parseSeconds, 0)
  .addHelpText('after', () => environmentHelp(DATABASE_SETTINGS))
  .action((opts: { wait: number }) => withAdminDb(async (knex) => {
    const applied = await migrateLatest(knex);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema already current');
  }, { needsSchema: false, waitMs: opts.wait * 1000 }));

program
  .command('load')
  .description('validate a dataset folder of CSV files, then write it in one transaction (or nothing)')
  .argument('<dir>', 'dataset folder: CSV files, as described below')
  .option('--replace', 'also remove records of the loaded kinds that the dataset lacks', false)
  .option('--if-empty', 'load only into a database without records; otherwise load nothing and exit 0 (a sample load that must not overwrite real records)', false)
  .option('--verbose', 'on stderr, how long each phase took: each file\'s reading (checked and staged) and writing, the commit, the ANALYZE', false)
  .addHelpText('after', () => `${datasetHelp()}${environmentHelp(DATABASE_SETTINGS)}`)
  .action((dir: string, opts: { replace: boolean; ifEmpty: boolean; verbose: boolean }) => withAdminDb(async (knex) => {
    if (opts.ifEmpty && !(await holdsNoRecords(knex))) {
      console.log('the database already holds records: nothing loaded (--if-empty)');
      return;
    }
    const progress = process.stderr.isTTY ? progressBars() : undefined;
    try {
      // Printed after the progress bars, which redraw the lines they own.
      const phases: string[] = [];
      const onPhase: LoadOptions['onPhase'] = opts.verbose
        ? ({ file, phase, ms }) => phases.push(`${file ? `${file} ` : ''}${phase}: ${(ms / 1000).toFixed(2)} s`)
        : undefined;
      const loaded = await loadDataset(knex, dir, { replace: opts.replace, onProgress: progress?.update, onPhase })
        .finally(() => {
          progress?.stop();
          for (const line of phases) console.error(line);
        });
      console.log(formatReport(loaded));
    } catch (e) {
      if (e instanceof DatasetError) {
        console.error(e.message);
        process.exitCode = 1;
        return;
      }
      throw e;
    }
  }));

// `svapi generate <dir> --scale N [--seed S]`: a synthetic dataset (src/generate).
registerGenerateCommand(program);

// `svapi compare <legacy base URL>`: the legacy service and svapi side by side (src/compare).
registerCompareCommand(program);

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
  .option('--json', 'print [{"DevID":n,"Name":"...","CreatedAt":"...","RevokedAt":null|"..."}]', false)
  .action((opts: { json: boolean }) => withAdminDb(async (knex) => {
    const all = await listKeys(knex);
    if (opts.json) return console.log(JSON.stringify(all.map(keyJson)));
    console.log(['DevID\tcreated\t\t\trevoked\t\t\tname', ...all.map((k) => `${k.devId}\t${k.createdAt}\t${k.revokedAt ?? '-\t\t\t'}\t${k.name}`)].join('\n'));
  }));
keys
  .command('revoke')
  .description('revoke a credential (refused everywhere within 5 seconds)')
  .argument('<DevID>', 'the credential to revoke', parseDevId)
  .action((devId: number) => withAdminDb(async (knex) => {
    const result = await revokeKey(knex, devId);
    if (result.outcome === 'revoked') return console.log(`revoked DevID ${devId} at ${result.revokedAt}`);
    console.error(result.outcome === 'already-revoked'
      ? `DevID ${devId} was already revoked at ${result.revokedAt}; nothing changed`
      : `no credential with DevID ${devId} (\`svapi keys list\` shows them)`);
    process.exitCode = 1;
  }));

for (const command of [keys, ...keys.commands]) command.addHelpText('after', () => environmentHelp(DATABASE_SETTINGS));

/** The JSON spelling of a credential, in the contract's DevID/DevKey style (as `keys create --json`). */
const keyJson = (k: DevKeyInfo) => ({ DevID: k.devId, Name: k.name, CreatedAt: k.createdAt, RevokedAt: k.revokedAt });

/** `serve` reads every setting; the other commands validate only the database settings they read. */
function withConfig(): Config;
function withConfig(only: 'database'): DatabaseConfig;
function withConfig(only?: 'database'): DatabaseConfig {
  try {
    return only ? loadDatabaseConfig() : loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message.split('\n').map((line) => `svapi: ${line}`).join('\n'));
      process.exit(CONFIG_EXIT_CODE);
    }
    throw e;
  }
}

/**
 * Runs `fn` with an admin connection; unless told otherwise, only once the schema is current.
 * waitMs: how long a database server may take to start accepting connections.
 */
async function withAdminDb(fn: (knex: import('knex').Knex) => Promise<void>, opts: { needsSchema?: boolean; waitMs?: number } = {}): Promise<void> {
  const config = withConfig('database');
  if (opts.waitMs && config.DATABASE_URL) {
    await waitForServer(config.DATABASE_URL, { timeoutMs: opts.waitMs, attemptMs: config.SVAPI_DB_TIMEOUT_MS, where: databaseLocation(config), report });
  }
  const db = await openDatabase(config, 'admin', { report });
  try {
    await requireReachable(db.knex, databaseLocation(config));
    if (opts.needsSchema !== false) await requireCurrentSchema(db.knex, databaseLocation(config));
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

function parseSeconds(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 3600) throw new InvalidArgumentError('seconds is an integer 0..3600');
  return n;
}

function parseWorkers(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > 256) throw new InvalidArgumentError('workers is an integer 1..256');
  return n;
}

function parseDevId(v: string): number {
  const n = Number(v.trim());
  if (!/^\s*[+-]?\d+\s*$/.test(v) || !isXsdInt(n)) throw new InvalidArgumentError('a DevID is a 32-bit integer');
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
