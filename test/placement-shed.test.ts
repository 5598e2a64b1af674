// A worker told by the primary to give up half its connections (src/placement/worker.ts) stops
// accepting until they have closed, so that their clients, reconnecting at once, reach another
// worker (when the primary says another surely accepts: relief, not spreading). It had gone on
// accepting, and being already on a core it took them straight back (docs/performance.md, issue
// 18, twenty-sixth pass). Run in a child process
// (test/support/placement-shed-run.ts): the worker's side reports to its primary over IPC, which a
// jest worker's channel must not get.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..');

async function run(scenario: string): Promise<{ events: { what: string; ms: number }[]; pauseMaxMs: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/run-ts.js', 'test/support/placement-shed-run.ts', scenario], { cwd: ROOT });
  const out = JSON.parse(stdout) as { events: string[]; pauseMaxMs: number };
  return {
    pauseMaxMs: out.pauseMaxMs,
    events: out.events.map((e) => {
      const at = e.lastIndexOf(' ');
      return { what: e.slice(0, at), ms: Number(e.slice(at + 1)) };
    }),
  };
}
const names = (events: { what: string }[]) => events.map((e) => e.what);

test('told to give up half of 4 connections: stops accepting, 2 are answered with Connection: close, and it accepts again once those 2 have closed', async () => {
  const { events, pauseMaxMs } = await run('answered');
  expect(names(events)).toEqual(['shed', 'refuse', 'closed', 'closed', 'accept', 'closing 2 of 4']);
  expect(events.find((e) => e.what === 'accept')!.ms).toBeLessThan(pauseMaxMs);
}, 30_000);

test('told to give up connections that send nothing more: accepts again after the longest pause', async () => {
  const { events, pauseMaxMs } = await run('silent');
  expect(names(events)).toEqual(['shed', 'refuse', 'accept']);
  expect(events[2].ms).toBeGreaterThanOrEqual(pauseMaxMs - 5);
}, 30_000);

test('told to give up connections without a pause (the primary spreading onto a worker that may not listen yet): goes on accepting', async () => {
  const { events } = await run('no-pause');
  expect(names(events)).toEqual(['shed', 'closed', 'closed', 'closing 2 of 4']);
}, 30_000);

test('told during the pause to give up more without a pause: the pause ends when it would have', async () => {
  const { events, pauseMaxMs } = await run('shed-again');
  expect(names(events)).toEqual(['shed', 'refuse', 'shed, no pause', 'accept']);
  expect(events[3].ms).toBeLessThan(pauseMaxMs * 1.25);
}, 30_000);

test('told to accept during the pause (as when a worker starts or ends): listens again at once, and once only', async () => {
  const { events, pauseMaxMs } = await run('told-to-accept');
  expect(names(events)).toEqual(['shed', 'refuse', 'told to accept', 'accept']);
  expect(events[3].ms).toBeLessThan(pauseMaxMs / 2);
}, 30_000);

test('told to stop accepting during the pause: does not listen again when the pause ends, only once told to accept', async () => {
  const { events } = await run('told-to-stop');
  expect(names(events)).toEqual(['shed', 'refuse', 'told to accept', 'accept']);
}, 30_000);
