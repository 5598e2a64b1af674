import crypto from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { loadConfig, type Config } from '../../src/config';
import { createKnex } from '../../src/db/connect';
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { migrateLatest } from '../../src/db/migrate';
import { seed as seedSample } from '../../seeds/sample';
import { templateFile } from './db-templates';

export interface TestDatabase {
  /** Admin (read-write) connection. */
  knex: Knex;
  url: string;
  embedded: boolean;
  config: Config;
  destroy(): Promise<void>;
}

/**
 * A database of its own for one test file: with DATABASE_URL, a new database on that server
 * (dropped afterwards); without it, an in-memory embedded PGlite, started from a copy of an
 * empty, migrated or seeded database when the global setup made them. Migrated unless told
 * not to; holding the sample dataset when told to.
 */
export async function freshDatabase(opts: { migrate?: boolean; seed?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<TestDatabase> {
  const migrate = opts.migrate !== false;
  const template = templateFile(!migrate ? 'empty' : opts.seed ? 'seeded' : 'migrated');
  const serverUrl = process.env.DATABASE_URL;
  let url: string;
  let cleanup: () => Promise<void>;
  if (serverUrl) {
    const name = `svapi_t_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
    const maintenance = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
    await maintenance.raw(`CREATE DATABASE ${name}`);
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    url = u.toString();
    cleanup = async () => {
      await maintenance.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await maintenance.destroy();
    };
  } else {
    const server = await spawnEmbedded(template);
    url = server.url;
    cleanup = server.stop;
  }
  const config = loadConfig({ ...opts.env, DATABASE_URL: url });
  const knex = createKnex(url, 'admin', config, !serverUrl);
  if (migrate) await migrateLatest(knex);
  if (opts.seed && (serverUrl || !template)) await seedSample(knex);
  return {
    knex,
    url,
    embedded: !serverUrl,
    config,
    destroy: async () => {
      await knex.destroy();
      await cleanup();
    },
  };
}

const ROOT = path.resolve(__dirname, '../..');

export interface EmbeddedProcess {
  url: string;
  /** Writes the database's files to `file` (a template for loadDataDir). */
  dump(file: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * An in-memory embedded database in a child process, reached over its loopback port; a copy of
 * the database files in `template` when given.
 */
export async function spawnEmbedded(template?: string): Promise<EmbeddedProcess> {
  const args = [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'test/support/embedded-server.ts'), ...(template ? [template] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const lines = readline.createInterface({ input: child.stdout! });
  const nextLine = () => Promise.race([
    new Promise<string>((resolve) => lines.once('line', resolve)),
    exited.then((code) => Promise.reject(new Error(`embedded database exited with ${code}`))),
  ]);
  const line = await nextLine();
  return {
    url: JSON.parse(line).url,
    dump: async (file) => {
      const done = nextLine();
      child.stdin!.write(`dump ${file}\n`);
      if ((await done) !== 'dumped') throw new Error('embedded database did not dump');
    },
    stop: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}
