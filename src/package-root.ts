import fs from 'node:fs';
import path from 'node:path';

/**
 * The folder holding package.json, wsdl/ and seeds/data/. Found by walking up, because this code
 * runs both from source (src/) and compiled (dist/src/), one level deeper.
 */
export const PACKAGE_ROOT = findPackageRoot(__dirname);

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** The sample dataset (seeds/sample.ts loads it; the embedded database's template is keyed by it). */
export const SAMPLE_DATA_DIR = path.join(PACKAGE_ROOT, 'seeds', 'data');
