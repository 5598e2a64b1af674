import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A cgroup of this machine limited to `cores` of CPU, as `docker run --cpus` makes one (cgroup v2's
 * cpu.max, else v1's cpu.cfs_quota_us), and the prefix that runs a command in it; undefined where
 * none can be made (not root, no writable cpu controller).
 */
export function cpuQuotaCgroup(cores: number): { prefix: string[]; remove(): void } | undefined {
  // Jest may run two test files in one process, one after the other: a name of its own each.
  const name = `svapi-test-${process.pid}-${randomUUID().slice(0, 8)}`;
  const candidates = [
    { dir: path.join('/sys/fs/cgroup', name), limit: (dir: string) => fs.writeFileSync(`${dir}/cpu.max`, `${Math.round(cores * 100_000)} 100000`, { flag: 'r+' }) },
    {
      dir: path.join('/sys/fs/cgroup/cpu', name),
      limit: (dir: string) => fs.writeFileSync(`${dir}/cpu.cfs_quota_us`, String(Math.round(cores * Number(fs.readFileSync(`${dir}/cpu.cfs_period_us`, 'utf8')))), { flag: 'r+' }),
    },
  ];
  for (const { dir, limit } of candidates) {
    try {
      fs.mkdirSync(dir);
    } catch {
      continue;
    }
    try {
      // A cgroup's files are there as soon as it is made; a plain folder (/sys/fs/cgroup is a tmpfs
      // when the hierarchies are v1) has none, and 'r+' makes none.
      limit(dir);
    } catch {
      fs.rmdirSync(dir); // empty: a cgroup's own files do not count, and a plain folder got none
      continue;
    }
    return {
      // The shell joins the cgroup, then becomes the command (its children stay in the cgroup).
      prefix: ['sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir],
      remove: () => fs.rmdirSync(dir),
    };
  }
  return undefined;
}
