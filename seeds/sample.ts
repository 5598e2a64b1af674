import path from 'node:path';
import type { Knex } from 'knex';
import { loadDataset, type LoadReport } from '../src/load';
import { PACKAGE_ROOT } from '../src/package-root';

export const SAMPLE_DATA_DIR = path.join(PACKAGE_ROOT, 'seeds', 'data');

/** knex seed: the bundled sample dataset, through the same loader a DBA uses. */
export async function seed(knex: Knex): Promise<LoadReport> {
  return loadDataset(knex, SAMPLE_DATA_DIR, { replace: false });
}
