// `svapi serve --workers N`: one listening port served by N processes; a dead worker is replaced;
// SIGTERM stops them all and the primary exits 0. The process that answered is read from the
// access log, whose lines carry `pid` (no response header gives process ids away).

import fs from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { spawnServe, type SpawnedServe } from './support/spawn-serve';
import { cpuQuotaCgroup } from './support/cpu-quota-cgroup';
import { servedBy as servedByOn } from './support/served-by';
import { LISTEN_BACKLOG } from '../src/server';
import { EXTRA_LISTEN_HANDLES } from '../src/listen-handles';
import { eventually, until } from './support/wait';
import { workerHeapFlags } from '../src/cluster';
import { processAlive } from '../src/db/embedded';

let svc: SpawnedServe;
afterAll(async () => {
  await svc?.stop();
});

const monster = (on: SpawnedServe) => `/API/hunting.asmx/GetMonster?DevID=${on.key.devId}&DevKey=${encodeURIComponent(on.key.devKey)}&MonsterID=1`;
/** The pids that answered `n` requests to `on`, each on a connection of its own. */
const servedBy = (n: number, on: SpawnedServe = svc) => servedByOn(on, n, monster(on));

test('--workers 2: requests are served by two processes, none of them the primary; a killed worker is replaced; SIGTERM exits 0', async () => {
  svc = await spawnServe(['--workers', '2']);
  // Each worker accepts on the shared socket, so sequential connections may all go to one while the
  // machine is loaded: ask until both have answered.
  const first = new Set<number>();
  await eventually(async () => {
    for (const pid of await servedBy(12)) first.add(pid);
    return first.size >= 2;
  }, 20_000);
  expect(first.size).toBe(2);
  expect(first.has(svc.child.pid!)).toBe(false);
  for (const pid of first) {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    // The default answer cache (64 MB) is counted in the old space.
    expect(argv).toEqual(expect.arrayContaining(workerHeapFlags(64, [])));
    expect(argv).toContain('--max-old-space-size=192');
  }

  const [victim] = [...first];
  process.kill(victim, 'SIGKILL');
  const now = new Set<number>();
  // A request that the primary handed to the worker as it died gets no answer: retry.
  await eventually(async () => {
    for (const pid of await servedBy(6).catch(() => new Set<number>())) now.add(pid);
    return now.size === 2 && !now.has(victim);
  }, 20_000);
  expect(now.has(victim)).toBe(false);
  expect(now.size).toBe(2);
  expect(svc.log.some((l) => l.msg === 'worker died; starting another' && l.workerPid === victim)).toBe(true);

  svc.child.kill('SIGTERM');
  expect(await svc.exited).toEqual({ code: 0, signal: null });
  expect(svc.log.filter((l) => l.msg === 'shutting down').length).toBeGreaterThanOrEqual(2);
});

test('serve without --workers on one core: a primary and one worker with the workers\' heap flags, not a single process; --workers 1: a single process', async () => {
  // taskset (util-linux) limits the process to one CPU, as a container's cpuset does: node's
  // availableParallelism() is then 1.
  const oneCore = ['taskset', '-c', '0'];
  const byDefault = await spawnServe([], {}, { prefix: oneCore });
  try {
    expect(byDefault.lines).toContain('  workers:   1');
    const served = await servedBy(4, byDefault);
    expect(served.size).toBe(1);
    const [worker] = [...served];
    expect(worker).not.toBe(byDefault.child.pid);
    expect(fs.readFileSync(`/proc/${worker}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(workerHeapFlags(64, [])));
    byDefault.child.kill('SIGTERM');
    expect(await byDefault.exited).toEqual({ code: 0, signal: null });

    const single = await spawnServe(['--workers', '1'], {}, { prefix: oneCore, over: byDefault });
    try {
      expect(single.lines.some((l) => l.startsWith('  workers:'))).toBe(false);
      expect(await servedBy(2, single)).toEqual(new Set([single.child.pid]));
    } finally {
      await single.stop();
    }
  } finally {
    await byDefault.stop();
  }
});

// Where this machine lets the test make a cgroup with a CPU quota (as root on Linux), and has two
// CPUs or more: Node 20's own count of them ignores the quota.
const oneCoreQuota = os.availableParallelism() >= 2 ? cpuQuotaCgroup(1) : undefined;
afterAll(() => oneCoreQuota?.remove());

(oneCoreQuota ? test : test.skip)('serve without --workers in a cgroup with a CPU quota of one core (docker run --cpus=1): a primary and one worker, not one per CPU', async () => {
  const limited = await spawnServe([], {}, { prefix: oneCoreQuota!.prefix });
  try {
    expect(limited.lines).toContain('  workers:   1');
    expect((await servedBy(4, limited)).size).toBe(1);
  } finally {
    await limited.stop();
  }
});

/** The listening socket on `port` as `ss` shows it: its backlog, and the file descriptors on it by pid. */
function listeningSocket(port: number): { backlog: number; fdsByPid: Map<number, number> } | undefined {
  const ss = spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  if (ss.error) return undefined;
  const [, , backlog] = ss.stdout.trim().split(/\s+/);
  const fdsByPid = new Map<number, number>();
  for (const [, pid] of ss.stdout.matchAll(/pid=(\d+),fd=\d+/g)) fdsByPid.set(Number(pid), (fdsByPid.get(Number(pid)) ?? 0) + 1);
  return { backlog: Number(backlog), fdsByPid };
}

test('--workers 2: each worker accepts on 1 + EXTRA_LISTEN_HANDLES copies of the listening socket, whose backlog stays LISTEN_BACKLOG', async () => {
  const served = await spawnServe(['--workers', '2']);
  try {
    const ids: (string | null)[] = [];
    const workers = () => new Set(served.log.filter((l) => l.msg === 'request' && ids.includes(l.requestId as string)).map((l) => l.pid as number));
    await until('both workers answering', async () => {
      const res = await fetch(`${served.url}/healthz`, { headers: { Connection: 'close' } });
      await res.text();
      ids.push(res.headers.get('x-request-id'));
      return workers().size === 2;
    }, 10_000);
    const port = Number(new URL(served.url).port);
    // `ss` (iproute2) is on the CI machine; elsewhere it may be missing.
    if (!listeningSocket(port) && !process.env.CI) return;
    // The copies arrive one by one after a worker first listens; the primary keeps the one it
    // listens with for the workers it starts, and closes the copy it was lent once it has sent it on.
    const fds = () => {
      const socket = listeningSocket(port)!;
      return { workers: [...workers()].map((pid) => socket.fdsByPid.get(pid)), primary: socket.fdsByPid.get(served.child.pid!) };
    };
    const expected = { workers: [1 + EXTRA_LISTEN_HANDLES, 1 + EXTRA_LISTEN_HANDLES], primary: 1 };
    await eventually(() => JSON.stringify(fds()) === JSON.stringify(expected), 10_000);
    expect(fds()).toEqual(expected);
    const somaxconn = Number(fs.readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    expect(listeningSocket(port)!.backlog).toBe(Math.min(LISTEN_BACKLOG, somaxconn));
  } finally {
    await served.stop();
  }
});

test('--workers 2: a primary killed as its workers start (as they lend it their socket) leaves no worker behind', async () => {
  for (let round = 0; round < 3; round++) {
    const served = await spawnServe(['--workers', '2'], { LOG_LEVEL: 'silent' });
    try {
      // Printed once both workers listen: when each has just sent the primary its socket.
      await served.line((l) => l.startsWith('  database:'));
      // The workers among the primary's children (run from the sources, it also has esbuild's).
      const children = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(served.child.pid)], { encoding: 'utf8' }).stdout
        .split('\n').filter((l) => / serve\b/.test(l)).map((l) => Number(l.trim().split(/\s+/)[0]));
      expect(children.length).toBe(2);
      served.child.kill('SIGKILL');
      await eventually(() => !children.some(processAlive), 10_000);
      expect(children.filter(processAlive)).toEqual([]);
    } finally {
      await served.stop();
    }
  }
}, 120_000);
