/**
 * Reference (b), the ceiling: a raw Node `http` server that answers every request with fixed
 * bytes (the body our service returns for GetMonster over SOAP 1.1) after reading the request
 * body. No routing, no parsing, no database. Loopback only.
 *
 * With `--workers N` it runs in the service's layout instead: a cluster primary and N workers,
 * each accepting its own connections (SCHED_NONE, as `svapi serve` does), so a bench can tell what
 * the layout alone does to the tail from what the service's work does.
 *
 *   node bin/run-ts.js bench/refs/raw-http.ts <body file> [content type] [--workers N]
 * Prints {"url": "http://127.0.0.1:<port>/API/hunting.asmx", "pid": n} on stdout once listening
 * (every worker, with --workers).
 */
import cluster from 'node:cluster';
import fs from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { workers: { type: 'string' } } });
// No --workers: one process, no cluster.
const workers = values.workers === undefined ? 0 : Number(values.workers);
if (values.workers !== undefined && (!Number.isInteger(workers) || workers < 1)) throw new Error(`--workers: a whole number of at least 1, not ${values.workers}`);
const body = fs.readFileSync(positionals[0]);
const type = positionals[1] ?? 'text/xml; charset=utf-8';
const headers = { 'Content-Type': type, 'Content-Length': String(body.length) };

const ready = (port: number) => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/API/hunting.asmx`, pid: process.pid })}\n`);

if (workers > 0 && cluster.isPrimary) {
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  let listening = 0;
  for (let i = 0; i < workers; i++) {
    cluster.fork().on('listening', (address) => {
      if (++listening === workers) ready(address.port);
    });
  }
  process.once('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill();
    process.exit(0);
  });
} else {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, headers);
      res.end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  // In a cluster every worker's listen(0) gets the one port the primary chose.
  server.listen(0, '127.0.0.1', () => {
    if (cluster.isPrimary) ready((server.address() as { port: number }).port);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}
