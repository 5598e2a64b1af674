#!/usr/bin/env node
// Start-up times of the `svapi` bin, median of RUNS runs each (plain JavaScript, so it measures any checkout):
//   node scripts/measure-startup.js [RUNS=5]
// - `svapi --help`: wall time of the whole process;
// - `svapi serve` on a new embedded data folder (a first start: the database is created, from the
//   copy `npm run build` prepares when it is current) and on one that already exists (a second
//   start): from spawning the process to the first 200 from /healthz.
// Prints the load average before and after, since the machine's load moves these times most.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');

const BIN = path.resolve(__dirname, '..', 'bin', 'svapi.js');
const RUNS = Number(process.argv[2] ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

function timeHelp() {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`svapi --help exited with ${r.status}: ${r.stderr}`);
  return ms(start);
}

/** Spawns `svapi serve` on the data folder; resolves with the ms to the first 200 from /healthz. */
async function timeServe(dataDir) {
  const port = await freePort();
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, DATABASE_URL: '', SVAPI_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let failed = false;
  void exited.then(() => (failed = true));
  try {
    for (;;) {
      if (failed) throw new Error('svapi serve exited before /healthz answered');
      const status = await globalThis.fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status, () => 0);
      if (status === 200) return ms(start);
      await sleep(5);
    }
  } finally {
    if (!failed) child.kill('SIGTERM');
    await exited;
  }
}

async function main() {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-startup-')), 'data');
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`load average before: ${load()}`);
  try {
    const first = [];
    for (let i = 0; i < RUNS; i++) first.push(await timeServe(`${dataDir}-first-${i}`));
    await timeServe(dataDir); // the first start creates, migrates and seeds the database
    const help = [];
    const serve = [];
    for (let i = 0; i < RUNS; i++) {
      help.push(timeHelp());
      serve.push(await timeServe(dataDir));
    }
    const fmt = (xs) => `median ${Math.round(median(xs))} ms (runs: ${xs.map(Math.round).join(', ')})`;
    console.log(`svapi serve (first start) to /healthz:  ${fmt(first)}`);
    console.log(`svapi --help:                          ${fmt(help)}`);
    console.log(`svapi serve (second start) to /healthz: ${fmt(serve)}`);
  } finally {
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
    console.log(`load average after: ${load()}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
