import type { Knex } from 'knex';
import { throttle, type ProgressListener } from './progress';
import { validateDataset } from './validate';
import { writeDataset, type LoadReport } from './write';

export { DatasetError, formatProblem, type Problem } from './problems';
export type { ProgressEvent, ProgressListener } from './progress';
export type { FileReport, LoadReport } from './write';
export { FILES, type FileSpec, type ColumnSpec } from './files';

export interface LoadOptions {
  /** Also delete the records of each kind whose file is present that the dataset lacks. */
  replace?: boolean;
  /** Called now and then (at most every 100 ms per file and phase) while reading and writing. */
  onProgress?: ProgressListener;
}

/**
 * Loads the dataset in `dir` (CONTRACT §9): validates every file first and throws a
 * DatasetError listing every problem, then writes everything in one transaction.
 */
export async function loadDataset(knex: Knex, dir: string, opts: LoadOptions = {}): Promise<LoadReport> {
  const replace = opts.replace ?? false;
  const progress = throttle(opts.onProgress);
  const files = await validateDataset(knex, dir, replace, progress);
  return writeDataset(knex, files, replace, progress);
}
