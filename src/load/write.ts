import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { readCsv } from './csv';
import { SQL_TYPES, type FileSpec } from './files';
import type { throttle } from './progress';
import { convertCell, type ValidatedFile } from './validate';

export interface FileReport {
  file: string;
  /** Records in the file. */
  rows: number;
  /** Rows added to the table. */
  inserted: number;
  /** Rows that existed and changed. */
  updated: number;
  /** Records already there as in the file (and, for globals, repeats within the file). */
  unchanged: number;
  /** Rows removed: damage rows a weapon in the file no longer has, or what --replace removed. */
  deleted: number;
}

export interface LoadReport {
  files: FileReport[];
}

type Progress = ReturnType<typeof throttle>;
type Row = (string | null)[];

const BATCH_ROWS = 5000;

/**
 * Writes validated files in one transaction: each file goes to a temporary staging table
 * (COPY on a real server; batched INSERTs on embedded PGlite, whose socket has no COPY), then
 * into its table with set-based SQL: upserts in foreign-key order, then --replace deletions
 * in reverse order, so no row ever refers to a row not yet written or already removed.
 */
export async function writeDataset(
  knex: Knex,
  files: ValidatedFile[],
  replace: boolean,
  progress: Progress,
): Promise<LoadReport> {
  const version: string = (await knex.raw('SELECT version() AS v')).rows[0].v;
  const embedded = version.includes('PGlite');
  return knex.transaction(async (trx) => {
    const reports = new Map<string, FileReport>();
    for (const f of files) {
      await trx.raw(`CREATE TEMP TABLE ${stage(f.spec)} (${f.spec.columns.map((c) => `${c.db} ${SQL_TYPES[c.type]}`).join(', ')}) ON COMMIT DROP`);
      if (embedded) await fillByInserts(trx, f, progress);
      else await fillByCopy(trx, f, progress);
      await trx.raw(`ANALYZE ${stage(f.spec)}`);
    }
    for (const f of files) {
      const { inserted, updated, deleted } = await upsert(trx, f.spec);
      reports.set(f.spec.file, { file: f.spec.file, rows: f.rows, inserted, updated, unchanged: f.rows - inserted - updated, deleted });
    }
    if (replace) {
      for (const f of [...files].reverse()) reports.get(f.spec.file)!.deleted += await removeMissing(trx, f.spec);
    }
    return { files: files.map((f) => reports.get(f.spec.file)!) };
  });
}

const stage = (spec: FileSpec) => `load_${spec.table}`;

/** The file's records again, converted; the file must be as it was when validated. */
async function* rows(f: ValidatedFile, progress: Progress): AsyncGenerator<Row[]> {
  const changed = () => new Error(`${f.spec.file} changed while it was being loaded; nothing was loaded`);
  const stat = await fs.promises.stat(f.path);
  if (stat.size !== f.size || stat.mtimeMs !== f.mtimeMs) throw changed();
  const { columns } = f.spec;
  let header = true;
  let done = 0;
  progress(f.spec.file, 'write', 0, f.rows);
  for await (const batch of readCsv(f.path, () => { throw changed(); })) {
    let out: Row[] = [];
    for (const { cells } of batch) {
      if (header) {
        header = false;
        continue;
      }
      const row: Row = new Array(columns.length);
      for (let j = 0; j < columns.length; j++) {
        const r = convertCell(columns[j], cells[f.cellIndex[j]] ?? '');
        if (r.error !== undefined) throw changed();
        row[j] = r.value;
      }
      out.push(row);
      if (out.length === BATCH_ROWS) {
        yield out;
        out = [];
        progress(f.spec.file, 'write', (done += BATCH_ROWS), f.rows);
      }
    }
    if (out.length) {
      yield out;
      progress(f.spec.file, 'write', (done += out.length), f.rows);
    }
  }
  if (done !== f.rows) throw changed();
}

async function fillByCopy(trx: Knex.Transaction, f: ValidatedFile, progress: Progress): Promise<void> {
  // Inside a transaction, knex hands out the transaction's own connection.
  const client = (await trx.client.acquireConnection()) as PoolClient;
  const cols = f.spec.columns.map((c) => c.db).join(', ');
  const copy = client.query(copyFrom(`COPY ${stage(f.spec)} (${cols}) FROM STDIN (FORMAT csv)`));
  const text = f.spec.columns.map((c) => c.type === 'text');
  async function* csv(): AsyncGenerator<string> {
    for await (const batch of rows(f, progress)) {
      let chunk = '';
      for (const row of batch) {
        for (let j = 0; j < row.length; j++) {
          const v = row[j];
          if (j > 0) chunk += ',';
          // Unquoted empty is NULL in COPY's CSV; text is always quoted (so `\.` stays data).
          if (v !== null) chunk += text[j] ? `"${v.replace(/"/g, '""')}"` : v;
        }
        chunk += '\n';
      }
      yield chunk;
    }
  }
  await pipeline(Readable.from(csv()), copy);
}

async function fillByInserts(trx: Knex.Transaction, f: ValidatedFile, progress: Progress): Promise<void> {
  const names = f.spec.columns.map((c) => c.db);
  for await (const batch of rows(f, progress)) {
    const objects = batch.map((row) => Object.fromEntries(names.map((n, j) => [n, row[j]])));
    await trx.raw(`INSERT INTO ${stage(f.spec)} SELECT * FROM json_populate_recordset(NULL::${stage(f.spec)}, ?)`, [
      JSON.stringify(objects),
    ]);
  }
}

async function upsert(trx: Knex.Transaction, spec: FileSpec): Promise<{ inserted: number; updated: number; deleted: number }> {
  const { table, key } = spec;
  const cols = spec.columns.map((c) => c.db);
  const insert = `INSERT INTO ${table} AS t (${cols.join(', ')}) SELECT ${cols.join(', ')} FROM ${stage(spec)}`;
  if (spec.mode === 'globals') {
    const r = await trx.raw(`${insert} ON CONFLICT ON CONSTRAINT hunting_globals_content_key DO NOTHING`);
    return { inserted: r.rowCount, updated: 0, deleted: 0 };
  }
  let deleted = 0;
  if (spec.mode === 'damage') {
    const r = await trx.raw(`DELETE FROM weapon_damage d
      WHERE d.weapon_id IN (SELECT weapon_id FROM ${stage(spec)})
        AND NOT EXISTS (SELECT 1 FROM ${stage(spec)} s WHERE s.weapon_id = d.weapon_id AND s.damage_type_name = d.damage_type_name)`);
    deleted = r.rowCount;
  }
  const rest = cols.filter((c) => !key.includes(c));
  // Compared as text so that 2.5 -> 2.50 counts as a change (numeric equality would not).
  const changed = `(${rest.map((c) => `t.${c}::text`).join(', ')}) IS DISTINCT FROM (${rest.map((c) => `EXCLUDED.${c}::text`).join(', ')})`;
  const r = await trx.raw(`WITH up AS (
      ${insert} ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${rest.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
      WHERE ${changed}
      RETURNING (xmax = 0) AS fresh)
    SELECT count(*) FILTER (WHERE fresh)::int AS inserted, count(*) FILTER (WHERE NOT fresh)::int AS updated FROM up`);
  return { ...r.rows[0], deleted };
}

/** --replace: removes the table's rows that the staged file lacks. */
async function removeMissing(trx: Knex.Transaction, spec: FileSpec): Promise<number> {
  const key = spec.mode === 'globals' ? spec.columns.map((c) => c.db) : spec.key;
  const r = await trx.raw(`DELETE FROM ${spec.table} t
    WHERE NOT EXISTS (SELECT 1 FROM ${stage(spec)} s WHERE ${key.map((c) => `s.${c} = t.${c}`).join(' AND ')})`);
  return r.rowCount;
}
