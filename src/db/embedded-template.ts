import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT, SAMPLE_DATA_DIR } from '../package-root';
import { migrationSpecs, type MigrationSpec } from '../../migrations';

/**
 * A first start's embedded database, made once by `npm run build` (PGlite's initdb alone takes
 * seconds of CPU): migrated and holding the sample data, as `serve` leaves a new data folder, but
 * without any credential. `serve` copies it into a new data folder when it was made from what this
 * code would put there (templateKey), and otherwise creates the database as before.
 */
export const TEMPLATE_DIR = path.join(PACKAGE_ROOT, 'dist', 'embedded-template');
const DATA = 'data';
const KEY = 'key';

/**
 * What shapes the template: PGlite's version, the migration files, the loader's code and the
 * sample data. Any change (a new or edited migration) gives another key, so the template is
 * not used until `npm run build` makes it again.
 */
export function templateKey(migrations: readonly MigrationSpec[] = migrationSpecs()): string {
  const hash = crypto.createHash('sha256');
  const pglite = path.join(path.dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  hash.update(JSON.parse(fs.readFileSync(pglite, 'utf8')).version).update('\0');
  for (const m of migrations) hash.update(m.file).update('\0').update(fs.readFileSync(m.path)).update('\0');
  const loader = path.join(__dirname, '..', 'load');
  for (const [dir, label] of [[SAMPLE_DATA_DIR, 'seed'], [loader, 'load']]) {
    const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name)).sort();
    for (const file of files) hash.update(`${label}/${path.relative(dir, file)}`).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** The template's data folder when it matches the current code, else undefined. */
export function currentTemplate(root = TEMPLATE_DIR): string | undefined {
  try {
    if (fs.readFileSync(path.join(root, KEY), 'utf8').trim() !== templateKey()) return undefined;
  } catch {
    return undefined;
  }
  return path.join(root, DATA);
}

/**
 * Makes the template unless the current one matches. `make(dir)` creates, migrates and seeds a
 * database in `dir` (src/build-embedded-template.ts). Built beside the old one and swapped in.
 */
export async function buildTemplate(make: (dir: string) => Promise<void>, root = TEMPLATE_DIR): Promise<boolean> {
  if (currentTemplate(root)) return false;
  const building = `${root}.building-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  try {
    await make(path.join(building, DATA));
    // Readable by whoever runs the build's output (a container's user): it holds no credential
    // and no secret, and each copy of it is made its owner's only when it is opened.
    makeReadable(building);
    fs.writeFileSync(path.join(building, KEY), `${templateKey()}\n`, { mode: 0o644 });
    fs.rmSync(root, { recursive: true, force: true });
    fs.renameSync(building, root);
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
  return true;
}

function makeReadable(dir: string): void {
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    fs.chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
  }
}
