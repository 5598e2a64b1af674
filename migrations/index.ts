import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { PACKAGE_ROOT } from '../src/package-root';

/** `<digits>_<name>.js|.ts`, as `npx knex migrate:make <name>` names a migration. */
const MIGRATION_FILE = /^(\d+_[^.]+)\.(js|ts)$/;

export interface MigrationSpec {
  /** The file's name without its extension: what knex_migrations records (the file may be compiled), and `npx knex migrate:list` prints. */
  file: string;
  path: string;
}

let found: MigrationSpec[] | undefined;

/**
 * Every migration file, in the order they run: those of this folder (TypeScript in a checkout,
 * compiled JavaScript under dist/), and, when running compiled, the JavaScript files of the
 * checkout's migrations/ (`npx knex migrate:make` writes one there; it runs without a rebuild).
 * Read once per process.
 */
export function migrationSpecs(): MigrationSpec[] {
  if (found) return found;
  const byName = new Map<string, MigrationSpec>();
  const add = (dir: string, file: string) => {
    const name = MIGRATION_FILE.exec(file)?.[1];
    if (!name) return;
    const other = byName.get(name);
    if (other && path.dirname(other.path) === dir) throw new Error(`two files for the migration ${name}: ${path.basename(other.path)} and ${file}`);
    byName.set(name, { file: name, path: path.join(dir, file) });
  };
  for (const file of fs.readdirSync(__dirname)) add(__dirname, file);
  const checkout = path.join(PACKAGE_ROOT, 'migrations');
  if (checkout !== __dirname && fs.existsSync(checkout)) {
    for (const file of fs.readdirSync(checkout)) {
      const name = MIGRATION_FILE.exec(file)?.[1];
      if (!name) continue;
      if (file.endsWith('.js')) add(checkout, file);
      else if (!byName.has(name)) {
        throw new Error(`migrations/${file} has no compiled build: run \`npm run build\`, or write the migration in JavaScript (as \`npx knex migrate:make\` does)`);
      }
    }
  }
  found = [...byName.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return found;
}

/** Every migration's name, in the order they run. */
export const migrationNames = (): string[] => migrationSpecs().map((m) => m.file);

export const migrationSource: Knex.MigrationSource<MigrationSpec> = {
  getMigrations: async () => migrationSpecs(),
  getMigrationName: (spec) => spec.file,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  getMigration: async (spec) => require(spec.path) as Knex.Migration,
};
