// The benchmark's compressed cases (bench/lib/compression.ts): an answer the server compresses is
// measured and checked (it must inflate to the plain one); one it answers uncompressed is reported.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { measureCompression } from '../bench/lib/compression';

const plain = Buffer.from(`<r>${'<Global><AreaName>Camp Ñandú</AreaName></Global>'.repeat(2000)}</r>`);
let server: http.Server;
let origin: string;
let gzipBody = zlib.gzipSync(plain);
let compresses = true;

beforeAll(async () => {
  // gzip when asked (br is not offered), as a service that knows one coding would.
  server = http.createServer((req, res) => {
    req.resume();
    if (compresses && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      res.setHeader('Content-Encoding', 'gzip');
      res.end(gzipBody);
    } else res.end(plain);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const run = () => measureCompression(origin, { method: 'GET', path: '/', headers: {} }, plain, process.pid,
  { connections: 2, warmupSeconds: 0, durationSeconds: 1 }, 1, () => {}, () => {});

test('gzip is measured and its bytes reported; br, answered uncompressed, is reported as such', async () => {
  const [identity, gzip, br] = await run();
  expect(identity).toMatchObject({ encoding: 'identity', contentEncoding: null, bodyBytes: plain.length });
  expect(gzip).toMatchObject({ encoding: 'gzip', contentEncoding: 'gzip', bodyBytes: gzipBody.length });
  expect(gzip.rounds[0].mismatches).toBe(0);
  expect(gzip.wireBytes).toBeGreaterThan(gzipBody.length); // headers too
  expect(gzip.wireBytes).toBeLessThan(plain.length);
  expect(gzip.vsPlain).not.toBeNull();
  expect(br).toMatchObject({ encoding: 'br', contentEncoding: null, rounds: [], vsPlain: null });
});

test('a service that compresses nothing: reported, and nothing measured', async () => {
  compresses = false;
  const results = await run();
  compresses = true;
  expect(results.map((r) => [r.encoding, r.contentEncoding, r.rounds.length])).toEqual([['identity', null, 0], ['gzip', null, 0], ['br', null, 0]]);
});

test('a compressed answer that does not inflate to the plain one stops the run', async () => {
  gzipBody = zlib.gzipSync(Buffer.concat([plain, Buffer.from(' ')]));
  await expect(run()).rejects.toThrow('Accept-Encoding gzip: the gzip answer does not inflate to the plain one');
});
