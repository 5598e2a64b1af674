import crypto from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { loadConfig, type Config } from '../../src/config';
import { createKnex } from '../../src/db/connect';
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { migrateLatest } from '../../src/db/migrate';

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
 * (dropped afterwards); without it, an in-memory embedded PGlite. Migrated unless told not to.
 */
export async function freshDatabase(opts: { migrate?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<TestDatabase> {
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
    const server = await spawnEmbedded();
    url = server.url;
    cleanup = server.stop;
  }
  const config = loadConfig({ ...opts.env, DATABASE_URL: url });
  const knex = createKnex(url, 'admin', config, !serverUrl);
  if (opts.migrate !== false) await migrateLatest(knex);
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

/** An in-memory embedded database in a child process, reached over its loopback port. */
export async function spawnEmbedded(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'test/support/embedded-server.ts')], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`embedded database exited with ${code}`)));
  });
  return {
    url: JSON.parse(line).url,
    stop: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}
