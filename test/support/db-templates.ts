// Embedded test databases start from copies of database files made once (PGlite's initdb takes
// seconds of CPU per database; loading a copy takes a fraction): empty, migrated, and migrated
// with the sample dataset. Built by the jest global setup, kept in the temporary folder under a
// hash of what shapes them, so later runs reuse them until a migration, the loader, the sample
// data or PGlite changes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Template = 'empty' | 'migrated' | 'seeded';
export const TEMPLATES: readonly Template[] = ['empty', 'migrated', 'seeded'];
/** The folder holding the copies, set by the global setup for the test files. */
export const TEMPLATES_ENV = 'SVAPI_TEST_DB_TEMPLATES';

const ROOT = path.resolve(__dirname, '../..');
const INPUTS = ['migrations', 'seeds', 'src/db', 'src/load', 'src/generated', 'src/config.ts', 'test/support/db-templates.ts', 'node_modules/@electric-sql/pglite/package.json'];

/** The copy of `template` for this run, if the global setup made them. */
export function templateFile(template: Template): string | undefined {
  const dir = process.env[TEMPLATES_ENV];
  return dir ? path.join(dir, `${template}.tar`) : undefined;
}

/** Where the copies for the current sources live (they may not exist yet). */
export function templatesDir(): string {
  const hash = crypto.createHash('sha256');
  for (const input of INPUTS) {
    const full = path.join(ROOT, input);
    const files = fs.statSync(full).isDirectory()
      ? fs.readdirSync(full, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name)).sort()
      : [full];
    for (const file of files) hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return path.join(os.tmpdir(), `svapi-test-db-${hash.digest('hex').slice(0, 16)}`);
}

export const templatesComplete = (dir: string) => TEMPLATES.every((t) => fs.existsSync(path.join(dir, `${t}.tar`)));
