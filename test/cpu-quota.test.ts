// The cgroup CPU quota (src/cpu-quota.ts), read from /proc and /sys trees written here as a
// container's would be: cgroup v2 and v1, with and without a cgroup namespace of their own.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cgroupCpuQuota, usableCores } from '../src/cpu-quota';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-cgroup-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** Writes files under `root`, each path absolute as the process would see it. */
function tree(files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
}

const V2_MOUNT = '30 22 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate\n';

test('cgroup v2 in its own namespace (docker run --cpus=1.5): 1.5 cores, so one worker', () => {
  tree({ '/proc/self/cgroup': '0::/\n', '/proc/self/mountinfo': V2_MOUNT, '/sys/fs/cgroup/cpu.max': '150000 100000\n' });
  expect(cgroupCpuQuota(root)).toBe(1.5);
  expect(usableCores(1.5)).toBe(1);
});

test('cgroup v2 with no limit ("max"), or no cpu.max at all: no quota', () => {
  tree({ '/proc/self/cgroup': '0::/\n', '/proc/self/mountinfo': V2_MOUNT, '/sys/fs/cgroup/cpu.max': 'max 100000\n' });
  expect(cgroupCpuQuota(root)).toBeUndefined();
  fs.rmSync(path.join(root, '/sys/fs/cgroup/cpu.max'));
  expect(cgroupCpuQuota(root)).toBeUndefined();
});

test('cgroup v2 without a namespace of its own: the smallest quota from the process\'s cgroup up to the root', () => {
  tree({
    '/proc/self/cgroup': '0::/kubepods.slice/pod1/cri-abc.scope\n',
    '/proc/self/mountinfo': V2_MOUNT,
    '/sys/fs/cgroup/kubepods.slice/pod1/cri-abc.scope/cpu.max': 'max 100000\n',
    '/sys/fs/cgroup/kubepods.slice/pod1/cpu.max': '200000 100000\n',
    '/sys/fs/cgroup/kubepods.slice/cpu.max': '800000 100000\n',
  });
  expect(cgroupCpuQuota(root)).toBe(2);
});

test('cgroup v1 as docker mounts it (its own cgroup at the mount point): quota / period', () => {
  tree({
    '/proc/self/cgroup': '12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/docker/abc\n',
    '/proc/self/mountinfo': '40 30 0:37 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct\n',
    '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '50000\n',
    '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
  });
  expect(cgroupCpuQuota(root)).toBe(0.5);
  expect(usableCores(0.5)).toBe(1);
});

test('cgroup v1 with no limit (-1), beside a cgroup2 mount with no cpu controller: no quota; with one, v1\'s', () => {
  tree({
    '/proc/self/cgroup': '3:cpuset:/\n1:cpu:/svapi\n0::/\n',
    '/proc/self/mountinfo': '31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n'
      + '40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n',
    '/sys/fs/cgroup/unified/cgroup.controllers': 'hugetlb\n',
    '/sys/fs/cgroup/cpu/svapi/cpu.cfs_quota_us': '-1\n',
    '/sys/fs/cgroup/cpu/svapi/cpu.cfs_period_us': '100000\n',
    '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
    '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
  });
  expect(cgroupCpuQuota(root)).toBeUndefined();
  fs.writeFileSync(path.join(root, '/sys/fs/cgroup/cpu/svapi/cpu.cfs_quota_us'), '300000\n');
  expect(cgroupCpuQuota(root)).toBe(3);
});

test('no /proc (not Linux) or no cgroup mounted: no quota, and every CPU is usable', () => {
  expect(cgroupCpuQuota(root)).toBeUndefined();
  tree({ '/proc/self/cgroup': '0::/\n', '/proc/self/mountinfo': '22 1 8:1 / / rw - ext4 /dev/sda1 rw\n' });
  expect(cgroupCpuQuota(root)).toBeUndefined();
  expect(usableCores(undefined)).toBe(os.availableParallelism());
  expect(usableCores(os.availableParallelism() + 8)).toBe(os.availableParallelism());
});
