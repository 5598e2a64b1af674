import type { Knex } from 'knex';
import { throttle, timer, type PhaseListener, type ProgressListener } from './progress';
import { openStager } from './stage';
import { checkDataset } from './validate';
import { applyStaged, type LoadReport } from './write';
import { FILES, SPEC_BY_FILE } from './files';
import { bumpDataVersion } from '../db/data-version';
import { ownClient } from '../db/own-client';

export { DatasetError, formatProblem, type Problem } from './problems';
export type { PhaseListener, PhaseTiming, ProgressEvent, ProgressListener } from './progress';
export type { FileReport, LoadReport } from './write';
export { FILES, type FileSpec, type ColumnSpec } from './files';

export interface LoadOptions {
  /** Also delete the records of each kind whose file is present that the dataset lacks. */
  replace?: boolean;
  /** Called now and then (at most every 100 ms per file and phase) while reading and writing. */
  onProgress?: ProgressListener;
  /** Called at the end of each phase with how long it took (`load --verbose`). */
  onPhase?: PhaseListener;
}

/**
 * Loads the dataset in `dir` (CONTRACT §9) in one transaction. Every file is read once:
 * checked, and while nothing is wrong, copied into a temporary staging table. Only when the
 * whole dataset is fine do the staged rows go into the tables; otherwise a DatasetError lists
 * every problem and nothing is written.
 */
export async function loadDataset(knex: Knex, dir: string, opts: LoadOptions = {}): Promise<LoadReport> {
  const replace = opts.replace ?? false;
  const progress = throttle(opts.onProgress);
  const version: string = (await knex.raw('SELECT version() AS v')).rows[0].v;
  const embedded = version.includes('PGlite');
  const timed = timer(opts.onPhase);
  let commitStart = 0;
  // The transaction runs on a connection of its own, so the COPYs can be sent on it (stage.ts).
  const copyClient = embedded ? undefined : await ownClient(knex);
  const report = await knex.transaction(async (trx) => {
    const files = await checkDataset(trx, dir, replace, progress, (spec) => openStager(trx, spec, copyClient), timed);
    const applied = await applyStaged(trx, files, replace, progress, timed);
    commitStart = performance.now();
    // Running services drop their cached answers when this commits.
    if (applied.files.some(changedAnything)) await bumpDataVersion(trx);
    return applied;
  }, copyClient ? { connection: copyClient } : undefined).finally(() => copyClient?.end());
  opts.onPhase?.({ file: '', phase: 'commit', ms: performance.now() - commitStart });
  const stale = await staleTables(knex, report);
  if (stale.length) await timed('', 'analyze', () => knex.raw(`ANALYZE ${stale.join(', ')}`));
  return report;
}

/**
 * The tables whose planner statistics a load has left stale: autovacuum may be off or slow to
 * come after a bulk change. As autovacuum's default threshold has it, a bulk change is one of at
 * least a tenth of the rows the last ANALYZE counted; so an hourly load of 10,000 globals into
 * 5,000,000 does not sample the whole table again (autovacuum counts those up as it always does).
 */
async function staleTables(knex: Knex, report: LoadReport): Promise<string[]> {
  const changed = new Map(report.files.filter(changedAnything)
    .map((f) => [SPEC_BY_FILE.get(f.file)!.table, f.inserted + f.updated + f.deleted]));
  if (changed.size === 0) return [];
  const r = await knex.raw(`SELECT relname AS table, reltuples AS counted FROM pg_class
    WHERE relname = ANY(?::text[]) AND relnamespace = current_schema()::regnamespace`, [`{${[...changed.keys()].join(',')}}`]);
  const counted = new Map((r.rows as { table: string; counted: number }[]).map((row) => [row.table, Number(row.counted)]));
  // reltuples is -1 for a table never analyzed, 0 for one empty when it was.
  return [...changed].filter(([table, n]) => n >= 0.1 * (counted.get(table) ?? -1)).map(([table]) => table);
}

const changedAnything = (f: { inserted: number; updated: number; deleted: number }) => f.inserted + f.updated + f.deleted > 0;

/** True when no table a dataset fills holds a row (credentials do not count): `load --if-empty`. */
export async function holdsNoRecords(knex: Knex): Promise<boolean> {
  for (const { table } of FILES) {
    if (await knex(table).first(knex.raw('1 AS one'))) return false;
  }
  return true;
}
