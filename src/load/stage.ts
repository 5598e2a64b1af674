import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { SQL_TYPES, type FileSpec } from './files';

/** A record as the text Postgres reads for each column (null for an empty cell). */
export type Row = (string | null)[];

/** Takes a file's checked rows into its temporary staging table. */
export interface Stager {
  add(rows: Row[]): Promise<void>;
  /** Frees the connection for another statement (a COPY in progress ends; the next add starts one). */
  pause(): Promise<void>;
  /** Always called, also after a failure, so the connection leaves COPY mode. */
  finish(): Promise<void>;
}

export const stageTable = (spec: FileSpec) => `load_${spec.table}`;

const INSERT_BATCH = 5000;

/**
 * Creates the staging table (dropped at commit or rollback) and a stager filling it with COPY
 * sent on `copyClient`, the connection `trx` runs on (load/index.ts), or without one (embedded
 * PGlite, whose socket server has no COPY FROM STDIN) with batched INSERTs.
 */
export async function openStager(trx: Knex.Transaction, spec: FileSpec, copyClient: Client | undefined): Promise<Stager> {
  const table = stageTable(spec);
  const columns = spec.columns.map((c) => `${c.db} ${SQL_TYPES[c.type]}`).join(', ');
  await trx.raw(`CREATE TEMP TABLE ${table} (${columns}) ON COMMIT DROP`);
  return copyClient ? copyStager(copyClient, spec) : insertStager(trx, spec);
}

function copyStager(client: Client, spec: FileSpec): Stager {
  const quote = spec.columns.map((c) => c.type === 'text');
  let copy: { stream: ReturnType<typeof copyFrom>; done: Promise<void> } | undefined;
  const open = () => {
    const stream = client.query(copyFrom(`COPY ${stageTable(spec)} (${spec.columns.map((c) => c.db).join(', ')}) FROM STDIN (FORMAT csv)`));
    const done = finished(stream);
    done.catch(() => {});
    return { stream, done };
  };
  const close = async () => {
    if (!copy) return;
    const { stream, done } = copy;
    copy = undefined;
    if (!stream.destroyed) stream.end();
    await done;
  };
  return {
    async add(rows) {
      copy ??= open();
      const { stream, done } = copy;
      if (stream.destroyed) return done;
      let chunk = '';
      for (const row of rows) {
        for (let j = 0; j < row.length; j++) {
          const v = row[j];
          if (j > 0) chunk += ',';
          // Unquoted empty is NULL in COPY's CSV; text is always quoted (so `\.` stays data).
          if (v !== null) chunk += quote[j] ? `"${v.replace(/"/g, '""')}"` : v;
        }
        chunk += '\n';
      }
      if (!stream.write(chunk)) await once(stream, 'drain');
    },
    pause: close,
    finish: close,
  };
}

function insertStager(trx: Knex.Transaction, spec: FileSpec): Stager {
  const table = stageTable(spec);
  const names = spec.columns.map((c) => c.db);
  return {
    async add(rows) {
      for (let i = 0; i < rows.length; i += INSERT_BATCH) {
        const objects = rows.slice(i, i + INSERT_BATCH).map((row) => Object.fromEntries(names.map((n, j) => [n, row[j]])));
        await trx.raw(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, ?)`, [JSON.stringify(objects)]);
      }
    },
    async pause() {},
    async finish() {},
  };
}
