// The access log behind a log reader slower than the service (a container's log driver, `| tee`
// to a slow disk): `svapi serve` writes at the reader's pace, and no answer waits for a fixed sleep.
// Node makes a pipe on stdout non-blocking; written synchronously, a full pipe failed with EAGAIN
// and sonic-boom slept 100 ms, holding every call of the process (log.ts accessLogFd).

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createKey } from '../src/auth/keys';
import { ROOT, SVAPI_SOURCE } from './support/cli';
import { freshDatabase, type TestDatabase } from './support/db';
import { freePort } from './support/redis-server';
import { until } from './support/wait';

let dir: string;
let db: TestDatabase;
let child: ChildProcess | undefined;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-slow-reader-'));
  db = await freshDatabase({ seed: true });
});
/** Stops the service (before its pipe's reader goes: it would fail its next write). */
async function stop(): Promise<void> {
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

/** Sends `url` on `connections` loops for `ms`; each answer's status and time. */
async function load(url: string, connections: number, ms: number): Promise<{ status: number; ms: number }[]> {
  const answers: { status: number; ms: number }[] = [];
  const end = performance.now() + ms;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const res = await fetch(url);
      await res.arrayBuffer();
      answers.push({ status: res.status, ms: performance.now() - started });
    }
  }));
  return answers;
}

// A pipe is opened anew through /proc/self/fd, which only Linux has (log.ts accessLogFd).
const onLinux = process.platform === 'linux' ? test : test.skip;

onLinux('behind a log reader slower than the service, calls are answered at its pace, none held for a sleep of 100 ms', async () => {
  // The service's stdout is a pipe (a named one, so that this test can read it at its own pace).
  const fifo = path.join(dir, 'stdout');
  execFileSync('mkfifo', [fifo]);
  const readEnd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writeEnd = fs.openSync(fifo, fs.constants.O_WRONLY);
  const key = await createKey(db.knex, 'slow-reader');
  const port = await freePort();
  child = spawn(process.execPath, [...SVAPI_SOURCE, 'serve', '--workers', '1'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      ...(db.embedded ? { SVAPI_SHARED_EMBEDDED: '1' } : {}),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SVAPI_RATE_LIMIT: '1000000',
      SVAPI_DB_POOL_MAX: '4',
    },
    stdio: ['ignore', writeEnd, 'inherit'],
  });
  fs.closeSync(writeEnd);
  // The reader takes at most 2 KB every 10 ms (200 KB/s, about 750 lines a second): slower than
  // 8 connections make lines, so the pipe (64 KB) fills within a second and stays full.
  const chunk = Buffer.alloc(2048);
  const take = (bytes: Buffer) => {
    try {
      return fs.readSync(readEnd, bytes, 0, bytes.length, null);
    } catch {
      return 0; // EAGAIN: nothing written since
    }
  };
  const reader = setInterval(() => take(chunk), 10);
  try {
    const base = `http://127.0.0.1:${port}`;
    await until('the service answers', async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.status === 200, 30_000);
    const url = `${base}/API/hunting.asmx/GetMonster?DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}&MonsterID=1`;
    const answers = await load(url, 8, 3_000);
    // The reader fell behind: the pipe holds a backlog.
    expect(take(Buffer.alloc(65_536))).toBeGreaterThan(16_384);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.length).toBeGreaterThan(500);
    const held = answers.filter((a) => a.ms >= 100).length;
    expect({ held, answers: answers.length, underOnePercent: held / answers.length < 0.01 })
      .toEqual({ held, answers: answers.length, underOnePercent: true });
  } finally {
    await stop();
    clearInterval(reader);
    fs.closeSync(readEnd);
  }
}, 60_000);
