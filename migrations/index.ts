import type { Knex } from 'knex';
import * as referenceData from './20261122000001_reference_data';
import * as devKeys from './20261122000002_dev_keys';

// Listed statically so migrations run the same under tsx, jest and a compiled build.
const migrations: Record<string, Knex.Migration> = {
  '20261122000001_reference_data': referenceData,
  '20261122000002_dev_keys': devKeys,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
