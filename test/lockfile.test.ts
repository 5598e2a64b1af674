import fs from 'node:fs';
import path from 'node:path';

// `npm ci` refuses a lock file that lacks an optional dependency, including the platform packages
// of other systems (@swc/core-darwin-arm64, @esbuild/win32-x64, ...) that this machine never installs.
interface LockEntry { version?: string; optionalDependencies?: Record<string, string> }
const lock = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** Where node would find `dep` from the package at `at`: its own node_modules, then each parent's. */
function resolveIn(at: string, dep: string): LockEntry | undefined {
  for (let dir = at; ; dir = dir.slice(0, Math.max(dir.lastIndexOf('/node_modules/'), 0))) {
    const entry = lock.packages[`${dir ? `${dir}/` : ''}node_modules/${dep}`];
    if (entry || !dir) return entry;
  }
}

test('the lock file holds every optional dependency of every locked package, at the wanted version', () => {
  const missing: string[] = [];
  for (const [at, entry] of Object.entries(lock.packages)) {
    for (const [dep, wanted] of Object.entries(entry.optionalDependencies ?? {})) {
      const found = resolveIn(at, dep);
      if (!found || (/^\d+\.\d+\.\d+$/.test(wanted) && found.version !== wanted)) missing.push(`${dep}@${wanted} (for ${at || 'svapi'})`);
    }
  }
  expect(missing).toEqual([]);
});
