// Compressed and conditional answers (src/http/answer.ts): an answer of 1 KB or more is sent with
// gzip or brotli when the request's Accept-Encoding takes it, on every binding and on the WSDLs and
// pages, and inflates to the plain answer byte for byte; the answer cache keeps each compressed
// form it made. GET answers carry a strong ETag (one per coding), If-None-Match gets 304, and a
// load changes the tags (the data version is in them).

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createKey } from '../src/auth/keys';
import { loadDataset } from '../src/load';
import { envelope, formBody, HUNTING, soapContentType, WEAPONS } from './support/bindings';
import { freshDatabase, type TestDatabase } from './support/db';
import { serveOver, type ServedApp } from './support/serve';
import { until } from './support/wait';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as received, not inflated. */
  bytes: Buffer;
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Sends a request with exactly these headers (fetch would add its own Accept-Encoding and inflate). */
function send(base: string, r: Request, extra: Record<string, string> = {}): Promise<Raw> {
  const url = new URL(base + r.path);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method: r.method, path: url.pathname + url.search, headers: { ...r.headers, ...extra }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

const inflate = (raw: Raw): Buffer => {
  const coding = raw.headers['content-encoding'];
  if (coding === 'gzip') return zlib.gunzipSync(raw.bytes);
  if (coding === 'br') return zlib.brotliDecompressSync(raw.bytes);
  if (coding === undefined) return raw.bytes;
  throw new Error(`unexpected Content-Encoding ${coding}`);
};

type Binding = 'soap11' | 'soap12' | 'get' | 'post' | 'json';
const BINDINGS: Binding[] = ['soap11', 'soap12', 'get', 'post', 'json'];

let db: TestDatabase;
let key: { devId: number; devKey: string };
/** The service with its answer cache (the version checked often, for the embedded database) and without. */
let cachedApp: ServedApp;
let uncachedApp: ServedApp;

beforeAll(async () => {
  db = await freshDatabase({ seed: true });
  key = await createKey(db.knex, 'compress');
  cachedApp = await serveOver(db, { SVAPI_CACHE_CHECK_MS: '200' });
  uncachedApp = await serveOver(db, { SVAPI_CACHE_MB: '0' });
});
afterAll(async () => {
  await cachedApp?.close();
  await uncachedApp?.close();
  await db?.destroy();
});

/** A call of `op` through `binding`, with the test credential. */
function callOf(binding: Binding, endpoint: string, op: string, params: Record<string, string>): Request {
  const all = { DevID: String(key.devId), DevKey: key.devKey, ...params };
  switch (binding) {
    case 'soap11':
    case 'soap12': {
      const version = binding === 'soap11' ? '1.1' : '1.2';
      const headers: Record<string, string> = { 'Content-Type': soapContentType(version) };
      if (version === '1.1') headers.SOAPAction = `"SVAPI/${op}"`;
      return { method: 'POST', path: endpoint, headers, body: envelope(version, op, all) };
    }
    case 'get':
      return { method: 'GET', path: `${endpoint}/${op}?${formBody(all)}`, headers: {} };
    case 'post':
      return { method: 'POST', path: `${endpoint}/${op}`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: formBody(all) };
    case 'json':
      return { method: 'POST', path: `${endpoint}/${op}`, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(all) };
  }
}

// Monster 5 has 209 globals in the sample data: 100 of them make an answer of about 80 KB.
const globals = (binding: Binding, n = '100') => callOf(binding, HUNTING, 'GetMonsterGlobals', { MonsterID: '5', NumberOfGlobals: n });
const monster = (binding: Binding, id = '1') => callOf(binding, HUNTING, 'GetMonster', { MonsterID: id });

const modes = () => [['cache on', cachedApp], ['cache off (SVAPI_CACHE_MB=0)', uncachedApp]] as const;

describe.each(BINDINGS)('%s', (binding) => {
  test.each(['gzip', 'br'])('a large answer in %s inflates to the plain answer byte for byte, cache on and off', async (coding) => {
    for (const [mode, app] of modes()) {
      const plain = await send(app.url, globals(binding));
      expect({ mode, status: plain.status, encoding: plain.headers['content-encoding'], vary: plain.headers.vary })
        .toEqual({ mode, status: 200, encoding: undefined, vary: 'Accept-Encoding' });
      expect(plain.bytes.length).toBeGreaterThan(50_000);
      const packed = await send(app.url, globals(binding), { 'Accept-Encoding': coding });
      expect({ mode, status: packed.status, encoding: packed.headers['content-encoding'], vary: packed.headers.vary, type: packed.headers['content-type'] })
        .toEqual({ mode, status: 200, encoding: coding, vary: 'Accept-Encoding', type: plain.headers['content-type'] });
      expect(Number(packed.headers['content-length'])).toBe(packed.bytes.length);
      expect(packed.bytes.length).toBeLessThan(plain.bytes.length / 5);
      expect(inflate(packed).equals(plain.bytes)).toBe(true);
    }
  });

  test('a small answer (under 1 KB) is sent as it is, without Vary', async () => {
    const small = await send(cachedApp.url, monster(binding), { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(small.status).toBe(200);
    expect(small.bytes.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBeUndefined();
  });

  test('an error answer is sent as it is', async () => {
    const wrong = callOf(binding, HUNTING, 'GetMonsterGlobals', { MonsterID: 'five' });
    const answer = await send(cachedApp.url, wrong, { 'Accept-Encoding': 'gzip, br' });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.etag).toBeUndefined();
  });
});

test.each([
  ['gzip;q=0.5, br;q=0.9', 'br'],
  ['gzip;q=0.9, br;q=0.5', 'gzip'],
  ['br;q=0, gzip', 'gzip'],
  ['gzip, deflate', 'gzip'], // zeep, suds
  ['gzip, deflate, br', 'br'], // browsers
  ['*', 'br'],
  ['identity', undefined],
  ['identity;q=0', undefined],
  ['deflate', undefined],
  ['', undefined],
])('Accept-Encoding %j gets %s', async (header, coding) => {
  const answer = await send(cachedApp.url, globals('get'), { 'Accept-Encoding': header });
  expect(answer.status).toBe(200);
  expect(answer.headers['content-encoding']).toBe(coding);
  expect(answer.headers.vary).toBe('Accept-Encoding');
});

test('no Accept-Encoding: the answer as it is', async () => {
  const answer = await send(cachedApp.url, globals('get'));
  expect(answer.headers['content-encoding']).toBeUndefined();
  expect(answer.bytes.subarray(0, 5).toString()).toBe('<?xml');
});

/** The answer cache's counters, from /metrics. */
async function cacheStats(app: ServedApp): Promise<{ hits: number; misses: number; bytes: number }> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)![1]);
  return { hits: value('svapi_cache_hits_total'), misses: value('svapi_cache_misses_total'), bytes: value('svapi_cache_bytes') };
}

test('a cached answer keeps each compressed form: made once, sent again byte for byte, counted in the cache size', async () => {
  // Parameters no other test asks for, so the first request is a miss.
  const request = globals('soap11', '97');
  const before = await cacheStats(cachedApp);
  const plain = await send(cachedApp.url, request);
  const stored = await cacheStats(cachedApp);
  expect(stored.misses).toBe(before.misses + 1);
  expect(stored.bytes).toBeGreaterThan(before.bytes + plain.bytes.length);

  const gzip1 = await send(cachedApp.url, request, { 'Accept-Encoding': 'gzip' });
  const afterGzip = await cacheStats(cachedApp);
  expect(afterGzip).toEqual({ hits: stored.hits + 1, misses: stored.misses, bytes: stored.bytes + gzip1.bytes.length });
  const gzip2 = await send(cachedApp.url, request, { 'Accept-Encoding': 'gzip' });
  expect(gzip2.bytes.equals(gzip1.bytes)).toBe(true);
  expect(await cacheStats(cachedApp)).toEqual({ ...afterGzip, hits: afterGzip.hits + 1 });

  const br1 = await send(cachedApp.url, request, { 'Accept-Encoding': 'br' });
  const afterBr = await cacheStats(cachedApp);
  expect(afterBr).toEqual({ hits: afterGzip.hits + 2, misses: stored.misses, bytes: afterGzip.bytes + br1.bytes.length });
  const br2 = await send(cachedApp.url, request, { 'Accept-Encoding': 'br' });
  expect(br2.bytes.equals(br1.bytes)).toBe(true);
  expect(await cacheStats(cachedApp)).toEqual({ ...afterBr, hits: afterBr.hits + 1 });

  expect(inflate(gzip2).equals(plain.bytes)).toBe(true);
  expect(inflate(br2).equals(plain.bytes)).toBe(true);
});

describe('ETag and If-None-Match', () => {
  test('a GET answer has a strong ETag, one for each form: the same tag is always the same bytes', async () => {
    const bytesOf = new Map<string, Buffer>();
    const plainTags = new Set<string>();
    for (const coding of [undefined, 'gzip', 'br']) {
      const headers: Record<string, string> = coding ? { 'Accept-Encoding': coding } : {};
      for (const [mode, app] of modes()) {
        const answer = await send(app.url, globals('get'), headers);
        const tag = answer.headers.etag!;
        expect({ mode, tag }).toEqual({ mode, tag: expect.stringMatching(/^"[\w-]+"$/) });
        if (!coding) plainTags.add(tag);
        const seen = bytesOf.get(tag);
        if (seen) expect({ mode, tag, same: seen.equals(answer.bytes) }).toEqual({ mode, tag, same: true });
        bytesOf.set(tag, answer.bytes);
      }
    }
    // The plain answer is the same bytes with and without the cache, so the same hash; the cached
    // one's tag also names the data version it was read at (only the cache follows the version).
    // The compressed forms differ (the cache keeps them made with a stronger setting), and so do their tags.
    const versioned = [...plainTags].filter((t) => /^"v\d+-/.test(t));
    const bare = [...plainTags].filter((t) => !/^"v\d+-/.test(t));
    expect({ versioned: versioned.length, bare: bare.length }).toEqual({ versioned: 1, bare: 1 });
    expect(versioned[0].replace(/^"v\d+-/, '"')).toBe(bare[0]);
    expect(bytesOf.size).toBe(6);
    expect((await send(cachedApp.url, monster('get'))).headers.etag).toMatch(/^"[\w-]+"$/);
  });

  test('If-None-Match naming the tag gets 304 with the tag and no body; another tag gets 200', async () => {
    for (const [mode, app] of modes()) {
      for (const coding of [undefined, 'gzip', 'br']) {
        const ae: Record<string, string> = coding ? { 'Accept-Encoding': coding } : {};
        const first = await send(app.url, globals('get'), ae);
        const tag = first.headers.etag!;
        for (const condition of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
          const again = await send(app.url, globals('get'), { ...ae, 'If-None-Match': condition });
          expect({ mode, coding, condition, status: again.status, etag: again.headers.etag, vary: again.headers.vary, length: again.bytes.length })
            .toEqual({ mode, coding, condition, status: 304, etag: tag, vary: 'Accept-Encoding', length: 0 });
        }
        const changed = await send(app.url, globals('get'), { ...ae, 'If-None-Match': '"not-this-one"' });
        expect({ mode, coding, status: changed.status, etag: changed.headers.etag }).toEqual({ mode, coding, status: 200, etag: tag });
        expect(changed.bytes.equals(first.bytes)).toBe(true);
      }
    }
  });

  test('the tag of the plain answer does not match its gzip form (another representation): 200', async () => {
    const plainTag = (await send(cachedApp.url, globals('get'))).headers.etag!;
    const packed = await send(cachedApp.url, globals('get'), { 'Accept-Encoding': 'gzip', 'If-None-Match': plainTag });
    expect(packed.status).toBe(200);
    expect(packed.headers['content-encoding']).toBe('gzip');
  });

  test.each(['soap11', 'soap12', 'post', 'json'] as const)('a POST answer (%s) has no ETag and is never 304', async (binding) => {
    const answer = await send(cachedApp.url, monster(binding), { 'If-None-Match': '*' });
    expect(answer.status).toBe(200);
    expect(answer.headers.etag).toBeUndefined();
    expect(answer.bytes.length).toBeGreaterThan(0);
  });

  test('a load changes the ETag: of an answer it changed, and (the data version is in the tag) of one it did not', async () => {
    const rename = (id: string, name: string) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-etag-'));
      fs.writeFileSync(path.join(dir, 'monsters.csv'), `MonsterID,MonsterName,Description,ItemPictureURL\n${id},${name},,\n`);
      return loadDataset(db.knex, dir);
    };
    const tagOf = async (id = '2') => {
      const answer = await send(cachedApp.url, monster('get', id));
      expect(answer.status).toBe(200);
      return { tag: answer.headers.etag!, body: answer.bytes.toString() };
    };
    const original = await tagOf();
    expect(original.body).toContain('<MonsterName>Atrox Young</MonsterName>');
    expect((await send(cachedApp.url, monster('get', '2'), { 'If-None-Match': original.tag })).status).toBe(304);

    const other = await tagOf('1');
    await rename('2', 'Atrox Renamed');
    await until('the answer names Atrox Renamed', async () => (await tagOf()).body.includes('Atrox Renamed'), 3000);
    const renamed = await tagOf();
    expect(renamed.tag).not.toBe(original.tag);
    const stale = await send(cachedApp.url, monster('get', '2'), { 'If-None-Match': original.tag });
    expect(stale.status).toBe(200);
    expect(stale.bytes.toString()).toContain('Atrox Renamed');

    // Monster 1's answer is the same bytes, read at a later data version: a new tag.
    const otherNow = await tagOf('1');
    expect({ body: otherNow.body, changed: otherNow.tag !== other.tag }).toEqual({ body: other.body, changed: true });

    await rename('2', 'Atrox Young');
    await until('the answer names Atrox Young again', async () => (await tagOf()).body.includes('Atrox Young'), 3000);
    const back = await tagOf();
    expect({ body: back.body, tags: new Set([back.tag, renamed.tag, original.tag]).size }).toEqual({ body: original.body, tags: 3 });
  });
});

describe('WSDLs and pages', () => {
  const PAGES = [
    `${HUNTING}?wsdl`,
    `${HUNTING}?WSDL`,
    `${WEAPONS}?wsdl`,
    HUNTING,
    `${HUNTING}?op=GetMonsterGlobals`,
    `${HUNTING}?op=GetMonster&json`,
    '/',
    `${HUNTING}?disco`,
  ];

  test.each(PAGES)('%s: compressed as the request asks, inflating to the plain one; an ETag, and 304 for it', async (page) => {
    const get: Request = { method: 'GET', path: page, headers: {} };
    const plain = await send(cachedApp.url, get);
    expect(plain.status).toBe(200);
    expect(plain.headers.etag).toMatch(/^"[\w-]+"$/);
    const large = plain.bytes.length >= 1024;
    for (const coding of ['gzip', 'br']) {
      const packed = await send(cachedApp.url, get, { 'Accept-Encoding': coding });
      expect({ page, encoding: packed.headers['content-encoding'], vary: packed.headers.vary })
        .toEqual({ page, encoding: large ? coding : undefined, vary: large ? 'Accept-Encoding' : undefined });
      expect(inflate(packed).equals(plain.bytes)).toBe(true);
      const again = await send(cachedApp.url, get, { 'Accept-Encoding': coding, 'If-None-Match': packed.headers.etag! });
      expect({ status: again.status, length: again.bytes.length, etag: again.headers.etag }).toEqual({ status: 304, length: 0, etag: packed.headers.etag });
    }
    const other = await send(cachedApp.url, get, { 'If-None-Match': '"something-else"' });
    expect(other.status).toBe(200);
    expect(other.bytes.equals(plain.bytes)).toBe(true);
  });

  test('the WSDL names the address the client used, so its tag follows the Host', async () => {
    const a = await send(cachedApp.url, { method: 'GET', path: `${HUNTING}?wsdl`, headers: { Host: 'one.example' } });
    const b = await send(cachedApp.url, { method: 'GET', path: `${HUNTING}?wsdl`, headers: { Host: 'two.example' } });
    expect(a.bytes.toString()).toContain('http://one.example/');
    expect(b.bytes.toString()).toContain('http://two.example/');
    expect(a.headers.etag).not.toBe(b.headers.etag);
    const crossed = await send(cachedApp.url, { method: 'GET', path: `${HUNTING}?wsdl`, headers: { Host: 'two.example', 'If-None-Match': a.headers.etag! } });
    expect(crossed.status).toBe(200);
  });
});
