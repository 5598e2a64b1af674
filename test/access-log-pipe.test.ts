// The access log's batches (src/log.ts LineBatch) when the workers of `svapi serve` share one
// stdout pipe and its reader falls behind (a log collector under load): every line arrives whole,
// never cut by another process's write. A write to a pipe is whole only up to PIPE_BUF bytes.

import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const LINES = 4_000;
const NODE = JSON.stringify(process.execPath);

test('two processes on one slowly read stdout pipe: every access-log line arrives whole, in order', async () => {
  const writer = (name: string) => `${NODE} bin/run-ts.js test/support/access-log-writer.ts ${name} ${LINES}`;
  // The reader takes 4 KB at a time, a little behind the writers, so the pipe stays full and
  // both writers wait for room in it at once.
  const reader = `${NODE} -e '${[
    'const fs = require("fs"); const b = Buffer.alloc(4096); const nap = new Int32Array(new SharedArrayBuffer(4));',
    'for (let n; (n = fs.readSync(0, b)) > 0;) { fs.writeSync(1, b, 0, n); Atomics.wait(nap, 0, 0, 0.3); }',
  ].join(' ')}'`;
  const child = spawn('/bin/sh', ['-c', `(${writer('A')} & ${writer('B')} & wait) | ${reader}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code).toBe(0);

  const seen: Record<string, number[]> = { A: [], B: [] };
  const broken: string[] = [];
  for (const line of Buffer.concat(chunks).toString('utf8').split('\n').slice(0, -1)) {
    try {
      const { w, i } = JSON.parse(line) as { w: string; i: number };
      seen[w].push(i);
    } catch {
      broken.push(line.slice(0, 80));
    }
  }
  expect(broken).toEqual([]);
  const all = Array.from({ length: LINES }, (_, i) => i);
  expect(seen).toEqual({ A: all, B: all });
}, 60_000);
