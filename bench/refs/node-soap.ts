/**
 * Reference (a): what a plain node-soap service costs. soap.listen on a bare node http server,
 * the same hunting WSDL, and GetMonster answering a fixed response object: no database, no
 * credential check, no Express. Loopback only.
 *
 *   node bin/run-ts.js bench/refs/node-soap.ts '<GetMonsterResult as JSON>'
 * Prints {"url": "http://127.0.0.1:<port>/API/hunting.asmx", "pid": n} on stdout once listening.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import * as soap from 'soap';

const ROOT = path.resolve(__dirname, '../..');
const PATH = '/API/hunting.asmx';
const monster = JSON.parse(process.argv[2] ?? '{"MonsterName":"Argonaut","MonsterID":1}');
const wsdl = fs.readFileSync(path.join(ROOT, 'wsdl/hunting.wsdl'), 'utf8');

const getMonster = () => ({ GetMonsterResult: monster });
const impl = { GetMonster: getMonster };
const services = { Hunting: { HuntingSoap: impl, HuntingSoap12: impl } };

const server = http.createServer((_req, res) => {
  res.statusCode = 404;
  res.end();
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  soap.listen(server, PATH, services as unknown as soap.IServices, wsdl, (err: unknown) => {
    if (err) {
      console.error(err);
      process.exit(1);
    }
    const { port } = server.address() as { port: number };
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}${PATH}`, pid: process.pid })}\n`);
  });
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
