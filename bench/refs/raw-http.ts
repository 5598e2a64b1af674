/**
 * Reference (b), the ceiling: a raw Node `http` server that answers every request with fixed
 * bytes (the body our service returns for GetMonster over SOAP 1.1) after reading the request
 * body. No routing, no parsing, no database. Loopback only.
 *
 *   node bin/run-ts.js bench/refs/raw-http.ts <body file> [content type]
 * Prints {"url": "http://127.0.0.1:<port>/API/hunting.asmx", "pid": n} on stdout once listening.
 */
import fs from 'node:fs';
import http from 'node:http';

const body = fs.readFileSync(process.argv[2]);
const type = process.argv[3] ?? 'text/xml; charset=utf-8';
const headers = { 'Content-Type': type, 'Content-Length': String(body.length) };

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, headers);
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/API/hunting.asmx`, pid: process.pid })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
