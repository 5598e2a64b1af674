import type { Knex } from 'knex';
import * as referenceData from './20261122000001_reference_data';
import * as devKeys from './20261122000002_dev_keys';
import * as nameOrder from './20261122000003_name_order_indexes';
import * as dataVersion from './20261122000004_data_version';

// Listed statically so migrations run the same under tsx, jest and a compiled build.
const migrations: Record<string, Knex.Migration> = {
  '20261122000001_reference_data': referenceData,
  '20261122000002_dev_keys': devKeys,
  '20261122000003_name_order_indexes': nameOrder,
  '20261122000004_data_version': dataVersion,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
