import type { Knex } from 'knex';
import type { FileSpec } from './files';
import type { throttle, timer } from './progress';
import { withBulkReferenceCheck } from './references';
import { stageTable } from './stage';
import type { CheckedFile } from './validate';

export interface FileReport {
  file: string;
  /** Records in the file. */
  rows: number;
  /** Rows added to the table. */
  inserted: number;
  /** Rows that existed and changed. */
  updated: number;
  /** Records already there as in the file (for globals, also repeats within the file). */
  unchanged: number;
  /** Rows removed: damage rows a weapon in the file no longer has, or what --replace removed. */
  deleted: number;
}

export interface LoadReport {
  files: FileReport[];
}

type Progress = ReturnType<typeof throttle>;
type Timed = ReturnType<typeof timer>;

// Staged rows are moved in slices of this many 8 KiB pages (some 100,000 globals), so
// progress can be shown during a long load.
const SLICE_PAGES = 1000;

/**
 * Moves the staged files into their tables: upserts in foreign-key order, then the --replace
 * deletions in reverse order, so no row ever refers to one not yet written or already removed.
 */
export async function applyStaged(
  trx: Knex.Transaction,
  files: CheckedFile[],
  replace: boolean,
  progress: Progress,
  timed: Timed,
): Promise<LoadReport> {
  const reports = new Map<string, FileReport>();
  for (const { spec, rows } of files) {
    const report = await timed(spec.file, 'write', async () => {
      // Statistics for the joins of the deletions; the upsert itself reads the stage in order.
      if (spec.mode === 'damage' || replace) await trx.raw(`ANALYZE ${stageTable(spec)}`);
      const deleted = spec.mode === 'damage' ? await removeDroppedDamage(trx, spec) : 0;
      const counts = spec.mode === 'globals'
        ? await withBulkReferenceCheck(trx, spec, () => upsertInSlices(trx, spec, rows, progress))
        : await upsertInSlices(trx, spec, rows, progress);
      return { file: spec.file, rows, ...counts, unchanged: rows - counts.inserted - counts.updated, deleted };
    });
    reports.set(spec.file, report);
  }
  if (replace) {
    for (const { spec } of [...files].reverse()) {
      reports.get(spec.file)!.deleted += await timed(spec.file, 'delete', () => removeMissing(trx, spec));
    }
  }
  return { files: files.map((f) => reports.get(f.spec.file)!) };
}

async function upsertInSlices(
  trx: Knex.Transaction,
  spec: FileSpec,
  rows: number,
  progress: Progress,
): Promise<{ inserted: number; updated: number }> {
  const counts = { inserted: 0, updated: 0 };
  const pages = Number((await trx.raw(`SELECT pg_relation_size('${stageTable(spec)}') / current_setting('block_size')::int AS n`)).rows[0].n);
  progress(spec.file, 'write', 0, rows);
  for (let page = 0; page < pages; page += SLICE_PAGES) {
    const slice = `ctid >= '(${page},0)'::tid AND ctid < '(${page + SLICE_PAGES},0)'::tid`;
    const r = await upsert(trx, spec, slice);
    counts.inserted += r.inserted;
    counts.updated += r.updated;
    progress(spec.file, 'write', Math.min(rows, Math.round((rows * (page + SLICE_PAGES)) / pages)), rows);
  }
  progress(spec.file, 'write', rows, rows);
  return counts;
}

async function upsert(trx: Knex.Transaction, spec: FileSpec, where: string): Promise<{ inserted: number; updated: number }> {
  const { table, key } = spec;
  const cols = spec.columns.map((c) => c.db);
  const insert = `INSERT INTO ${table} AS t (${cols.join(', ')}) SELECT ${cols.join(', ')} FROM ${stageTable(spec)} WHERE ${where}`;
  if (spec.mode === 'globals') {
    const r = await trx.raw(`${insert} ON CONFLICT ON CONSTRAINT hunting_globals_content_key DO NOTHING`);
    return { inserted: r.rowCount, updated: 0 };
  }
  const rest = cols.filter((c) => !key.includes(c));
  // Compared as text, so 2.5 -> 2.50 is a change (as numbers they are equal).
  const changed = `(${rest.map((c) => `t.${c}::text`).join(', ')}) IS DISTINCT FROM (${rest.map((c) => `EXCLUDED.${c}::text`).join(', ')})`;
  const r = await trx.raw(`WITH up AS (
      ${insert}
      ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${rest.map((c) => `${c} = EXCLUDED.${c}`).join(', ')} WHERE ${changed}
      RETURNING (xmax = 0) AS fresh)
    SELECT count(*) FILTER (WHERE fresh)::int AS inserted, count(*) FILTER (WHERE NOT fresh)::int AS updated FROM up`);
  return r.rows[0];
}

/** A weapon in the file has exactly the file's damage rows. */
async function removeDroppedDamage(trx: Knex.Transaction, spec: FileSpec): Promise<number> {
  const stage = stageTable(spec);
  const r = await trx.raw(`DELETE FROM weapon_damage d
    WHERE d.weapon_id IN (SELECT weapon_id FROM ${stage})
      AND NOT EXISTS (SELECT 1 FROM ${stage} s WHERE s.weapon_id = d.weapon_id AND s.damage_type_name = d.damage_type_name)`);
  return r.rowCount;
}

/** --replace: removes the rows the staged file lacks (a global is matched by its whole content). */
async function removeMissing(trx: Knex.Transaction, spec: FileSpec): Promise<number> {
  const key = spec.mode === 'globals' ? spec.columns.map((c) => c.db) : spec.key;
  const r = await trx.raw(`DELETE FROM ${spec.table} t
    WHERE NOT EXISTS (SELECT 1 FROM ${stageTable(spec)} s WHERE ${key.map((c) => `s.${c} = t.${c}`).join(' AND ')})`);
  return r.rowCount;
}
