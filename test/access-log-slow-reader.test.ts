// The access log behind a log reader slower than the service (a container's log driver, `| tee`
// to a slow disk). Node makes a pipe on stdout non-blocking, in every process on it; written
// synchronously, a full pipe failed with EAGAIN and sonic-boom slept 100 ms, holding every call of
// the process. Each process of `svapi serve` writes its access log through a blocking description
// of that pipe of its own (log.ts stdoutFd), so a write waits only until the reader has made
// room. What that does to throughput and latency is measured, not timed here (docs/performance.md,
// twenty-ninth pass).

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKey } from '../src/auth/keys';
import { ROOT, SVAPI_SOURCE } from './support/cli';
import { freshDatabase, type TestDatabase } from './support/db';
import { namedPipe, readWaiting } from './support/named-pipe';
import { freePort } from './support/redis-server';
import { until } from './support/wait';

let dir: string;
let db: TestDatabase;
let child: ChildProcess | undefined;
let workers: number[] = [];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-slow-reader-'));
  db = await freshDatabase({ seed: true });
});
/** Stops the service, its workers too (before its pipe's reader goes: they would fail their next write). */
async function stop(): Promise<void> {
  for (const pid of workers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child!.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}
afterAll(async () => {
  await stop();
  await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The processes of the cluster whose primary is `pid` (its workers). */
function workersOf(pid: number): number[] {
  return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

const O_NONBLOCK = fs.constants.O_NONBLOCK;

/** The descriptors of process `pid` open on what `target` names, with their flags. */
function descriptorsOn(pid: number, target: string): { fd: number; flags: number }[] {
  return fs.readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) !== target) return [];
      const flags = /^flags:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))![1];
      return [{ fd: Number(fd), flags: parseInt(flags, 8) }];
    } catch {
      return []; // closed meanwhile
    }
  });
}

// A pipe is opened anew through /proc/self/fd, which only Linux has.
const onLinux = process.platform === 'linux' ? test : test.skip;

onLinux('with stdout on a pipe, which Node makes non-blocking, every process writes its access log through a blocking description of that pipe of its own', async () => {
  // The service's stdout: a named pipe, read here as lines come.
  const fifo = path.join(dir, 'stdout');
  const { readEnd, writeEnd } = namedPipe(fifo);
  const key = await createKey(db.knex, 'slow-reader');
  const port = await freePort();
  child = spawn(process.execPath, [...SVAPI_SOURCE, 'serve', '--workers', '2'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      ...(db.embedded ? { SVAPI_SHARED_EMBEDDED: '1' } : {}),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SVAPI_DB_POOL_MAX: '4',
    },
    stdio: ['ignore', writeEnd, 'inherit'],
  });
  fs.closeSync(writeEnd);
  let text = '';
  const reader = setInterval(() => {
    for (let more; (more = readWaiting(readEnd, 65_536)).length > 0;) text += more.toString('utf8');
  }, 10);
  try {
    const base = `http://127.0.0.1:${port}`;
    // The primary says so once every worker listens: each has made its access log before.
    await until('every worker listening', () => text.includes('svapi listening on '), 30_000);
    workers = workersOf(child.pid!);
    expect(workers).toHaveLength(2);
    for (const pid of workers) {
      const stdout = fs.readlinkSync(`/proc/${pid}/fd/1`);
      expect(stdout).toBe(fifo);
      const onPipe = descriptorsOn(pid, stdout);
      // Its stdout is non-blocking, as Node makes it; the access log's own description is not.
      expect(onPipe.find((d) => d.fd === 1)!.flags & O_NONBLOCK).toBe(O_NONBLOCK);
      const own = onPipe.filter((d) => d.fd > 2);
      expect(own.map((d) => d.flags & O_NONBLOCK)).toEqual([0]);
    }
    // And the access log's lines come through it, whole.
    const url = `${base}/API/hunting.asmx/GetMonster?DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}&MonsterID=1`;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      ids.push(res.headers.get('x-request-id')!);
    }
    const logged = () => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; requestId?: string });
    await until('the calls\' access-log lines', () => ids.every((id) => logged().some((l) => l.msg === 'request' && l.requestId === id)), 5_000);
  } finally {
    await stop();
    clearInterval(reader);
    fs.closeSync(readEnd);
  }
}, 60_000);
