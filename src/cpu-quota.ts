import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The CPU quota of this process's cgroup, in cores (`docker run --cpus=1.5`, a Kubernetes CPU
 * limit: 1.5), or undefined when none is set or none can be read. The smallest quota from the
 * process's cgroup up to its hierarchy's root; cgroup v2 (`cpu.max`) and v1
 * (`cpu.cfs_quota_us` / `cpu.cfs_period_us`) both, the smaller when both have one. `root` is where
 * /proc and /sys are found (tests give a directory of their own).
 */
export function cgroupCpuQuota(root = '/'): number | undefined {
  const read = (file: string): string | undefined => {
    try {
      return fs.readFileSync(path.join(root, file), 'utf8');
    } catch {
      return undefined;
    }
  };
  const memberships = read('/proc/self/cgroup');
  const mounts = read('/proc/self/mountinfo');
  if (memberships === undefined || mounts === undefined) return undefined;
  const quotas = [
    quotaIn(cgroupDir(memberships, mounts, 'v2'), (dir) => {
      const [max, period] = (read(`${dir}/cpu.max`) ?? '').trim().split(/\s+/);
      return max === 'max' ? undefined : Number(max) / Number(period);
    }),
    quotaIn(cgroupDir(memberships, mounts, 'v1'), (dir) => {
      const quota = Number(read(`${dir}/cpu.cfs_quota_us`));
      return quota > 0 ? quota / Number(read(`${dir}/cpu.cfs_period_us`)) : undefined;
    }),
  ].filter((q): q is number => q !== undefined);
  return quotas.length ? Math.min(...quotas) : undefined;
}

/**
 * The cores this process may use: the CPUs it may run on (`os.availableParallelism()`), fewer when
 * its cgroup's CPU quota is lower, rounded down, at least one; as Node 22 counts them (libuv 1.49).
 * Node 20's own count (libuv 1.46) ignores the quota: in a container given 2 CPUs on a 32-core host
 * it says 32.
 */
export function usableCores(quota = cgroupCpuQuota()): number {
  const cpus = os.availableParallelism();
  return quota === undefined ? cpus : Math.max(1, Math.min(cpus, Math.floor(quota)));
}

interface CgroupDir {
  /** The mount point of the hierarchy. */
  mountPoint: string;
  /** The process's cgroup in it, below the mount point ('' when it is the mount point itself). */
  below: string;
}

/**
 * Where this process's cgroup is: v2, the `0::` line of /proc/self/cgroup and the cgroup2 mount;
 * v1, the line whose controllers include `cpu` and the cgroup mount with that controller.
 */
function cgroupDir(memberships: string, mounts: string, version: 'v1' | 'v2'): CgroupDir | undefined {
  const hasCpu = (list: string) => list.split(',').includes('cpu');
  const membership = memberships.split('\n').map((l) => /^(\d+):([^:]*):(.*)$/.exec(l)).find((m) => m !== null
    && (version === 'v2' ? m[1] === '0' && m[2] === '' : hasCpu(m[2])));
  if (!membership) return undefined;
  for (const line of mounts.split('\n')) {
    const [before, after] = line.split(' - ');
    if (after === undefined) continue;
    const [, , , mountRoot, mountPoint] = before.split(' ');
    const [fsType, , superOptions = ''] = after.split(' ');
    if (version === 'v2' ? fsType !== 'cgroup2' : fsType !== 'cgroup' || !hasCpu(superOptions)) continue;
    // A container without its own cgroup namespace sees its cgroup's full path, and has only that
    // cgroup mounted (mountRoot is that path): then the mount point is the process's cgroup.
    const cgroup = membership[3];
    const below = mountRoot === '/' ? cgroup : cgroup.startsWith(`${mountRoot}/`) ? cgroup.slice(mountRoot.length) : '';
    return { mountPoint: unescapeMountPath(mountPoint), below: below === '/' ? '' : below };
  }
  return undefined;
}

/** The smallest quota from the cgroup up to the mount point. */
function quotaIn(dir: CgroupDir | undefined, quotaOf: (dir: string) => number | undefined): number | undefined {
  if (!dir) return undefined;
  let smallest: number | undefined;
  for (let below = dir.below; ; below = path.posix.dirname(below)) {
    const quota = quotaOf(path.posix.join(dir.mountPoint, below));
    if (quota !== undefined && Number.isFinite(quota) && quota > 0) smallest = Math.min(smallest ?? Infinity, quota);
    if (below === '' || below === '/') break;
  }
  return smallest;
}

/** /proc/self/mountinfo writes a space, tab, newline and backslash in a path as octal escapes. */
const unescapeMountPath = (p: string) => p.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
