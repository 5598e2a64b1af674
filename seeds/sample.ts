import type { Knex } from 'knex';
import { loadDataset, type LoadReport } from '../src/load';
import type { Seeding } from '../src/db/connect';
import { SAMPLE_DATA_DIR } from '../src/package-root';

export { SAMPLE_DATA_DIR };

/** knex seed: the bundled sample dataset, through the same loader a DBA uses. */
export async function seed(knex: Knex): Promise<LoadReport> {
  return loadDataset(knex, SAMPLE_DATA_DIR, { replace: false });
}

/** The seeding a service's first start on a new embedded database runs (db/connect.ts). */
export const SAMPLE_SEEDING: Seeding = { dir: SAMPLE_DATA_DIR, run: seed };
