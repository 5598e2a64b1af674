import type { Knex } from 'knex';
import * as referenceData from './20261122000001_reference_data';
import * as devKeys from './20261122000002_dev_keys';
import * as nameOrder from './20261122000003_name_order_indexes';
import * as dataVersion from './20261122000004_data_version';
import * as caseFoldedNames from './20261124000005_case_folded_names';

// Listed statically so migrations run the same under tsx, jest and a compiled build.
const migrations: Record<string, Knex.Migration> = {
  '20261122000001_reference_data': referenceData,
  '20261122000002_dev_keys': devKeys,
  '20261122000003_name_order_indexes': nameOrder,
  '20261122000004_data_version': dataVersion,
  '20261124000005_case_folded_names': caseFoldedNames,
};

/** Every migration's name, in the order they run. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations).sort();

// Each migration is named by a spec shaped like knex's own file specs ({ file }), which
// `npx knex migrate:list` prints.
export const migrationSource: Knex.MigrationSource<{ file: string }> = {
  getMigrations: async () => MIGRATION_NAMES.map((file) => ({ file })),
  getMigrationName: (spec) => spec.file,
  getMigration: async (spec) => migrations[spec.file],
};
