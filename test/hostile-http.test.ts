// CONTRACT §4, §7 and §8 on the HTTP GET and POST bindings: what a hostile or careless client
// can send, and what it gets back.

import net from 'node:net';
import zlib from 'node:zlib';
import { startService, type TestService } from './support/service';
import { serveOver, type ServedApp } from './support/serve';
import { call, envelope, formBody, LEAKS, readError, readResult, send, soapContentType, WEAPONS, HUNTING, type Answer } from './support/bindings';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

const creds = () => ({ DevID: String(svc.key.devId), DevKey: svc.key.devKey });
const HTTP = ['get', 'post'] as const;
const FORM = 'application/x-www-form-urlencoded';

function expectError(answer: Answer, status: number, code: string, parameter?: string) {
  expect({ status: answer.status, body: answer.body.slice(0, 300) }).toEqual({ status, body: expect.any(String) });
  expect(answer.headers.get('content-type')).toBe('text/xml; charset=utf-8');
  const error = readError(answer.body);
  expect(error).toMatchObject({ code, faultCode: undefined, ...(parameter ? { parameter } : {}) });
  for (const leak of LEAKS) expect(leak.test(answer.body)).toBe(false);
  return error;
}

const postForm = (path: string, body: RequestInit['body'], headers: Record<string, string> = {}) =>
  send(svc.url + path, { method: 'POST', headers: { 'Content-Type': FORM, ...headers }, body });

/** `mib` MiB of zeros, brotli-compressed as it is generated (never whole in memory). */
/** The CPU time this process has used since `since` (process.cpuUsage()), in ms. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function brotliBomb(mib: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } });
    const out: Buffer[] = [];
    stream.on('data', (d: Buffer) => out.push(d));
    stream.on('end', () => resolve(Buffer.concat(out)));
    stream.on('error', reject);
    const chunk = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < mib; i++) stream.write(chunk);
    stream.end();
  });
}

async function tableCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['weapons', 'items', 'monsters', 'hunting_globals', 'dev_keys']) {
    counts[table] = Number((await svc.db.knex(table).count({ n: '*' }))[0].n);
  }
  return counts;
}

describe.each(HTTP)('HTTP %s', (binding) => {
  const weapons = (params: Record<string, string | undefined>) => call(svc.url, binding, WEAPONS, 'GetWeapons', { ...creds(), ...params });
  const names = (answer: Answer) => readResult(answer.body).children.map((w) => w.children.find((c) => c.local === 'WeaponName')!.text);

  test('SearchWord: 100 characters pass, 101 are InvalidParameter (code points, after trimming)', async () => {
    expect((await weapons({ SearchWord: 'a'.repeat(100) })).status).toBe(200);
    expect((await weapons({ SearchWord: `  ${'a'.repeat(100)}  ` })).status).toBe(200);
    expect((await weapons({ SearchWord: '😀'.repeat(100) })).status).toBe(200);
    expectError(await weapons({ SearchWord: 'a'.repeat(101) }), 400, 'InvalidParameter', 'SearchWord');
    expectError(await weapons({ SearchWord: 'x'.repeat(5000) }), 400, 'InvalidParameter', 'SearchWord');
  });

  test('%, _ and \\ match themselves, not as wildcards', async () => {
    const all = names(await weapons({ SearchWord: '' }));
    expect(all.length).toBeGreaterThan(2);
    for (const word of ['%', '_', '\\', '%%', '_%_', '\\%', 'a%', '%a', '[a-z]', '.*']) {
      const answer = await weapons({ SearchWord: word });
      expect({ word, status: answer.status }).toEqual({ word, status: 200 });
      const found = names(answer);
      expect(found.every((n) => n.toLowerCase().includes(word.toLowerCase()))).toBe(true);
      expect(found.length).toBe(all.filter((n) => n.toLowerCase().includes(word.toLowerCase())).length);
    }
  });

  test('SQL-looking text is a search word like any other; the tables are intact', async () => {
    const before = await tableCounts();
    for (const word of ["'; DROP TABLE weapons; --", "' OR '1'='1", '"; DELETE FROM dev_keys; --', "1; SELECT pg_sleep(10)", "$$; TRUNCATE items; $$", "') UNION SELECT key_hash FROM dev_keys --"]) {
      const answer = await weapons({ SearchWord: word });
      expect({ word, status: answer.status }).toEqual({ word, status: 200 });
      // pg_sleep(10) run would take 10 s; a loaded machine takes well under 8.
      expect(answer.ms).toBeLessThan(8000);
      expect(names(answer)).toEqual([]);
    }
    for (const id of ["1; DROP TABLE monsters", "1 OR 1=1"]) {
      expectError(await call(svc.url, binding, HUNTING, 'GetMonster', { ...creds(), MonsterID: id }), 400, 'InvalidParameter', 'MonsterID');
    }
    expect(await tableCounts()).toEqual(before);
  });

  test('control characters are InvalidParameter; undecodable %-escapes are replacement characters', async () => {
    expectError(await weapons({ SearchWord: 'a\u0000b' }), 400, 'InvalidParameter', 'SearchWord');
    expectError(await weapons({ SearchWord: '\u0001' }), 400, 'InvalidParameter', 'SearchWord');
    expect((await weapons({ SearchWord: 'tab\there' })).status).toBe(200);
  });

  test('ints out of range or not ints are InvalidParameter naming the parameter; absent is MissingParameter', async () => {
    const monster = (params: Record<string, string | undefined>) => call(svc.url, binding, HUNTING, 'GetMonster', { ...creds(), ...params });
    for (const bad of ['2147483648', '-2147483649', '99999999999999999999', '1e3', '0x10', '12abc', '1.0', '', ' ', '+', '--1', '١٢', 'NaN', 'Infinity']) {
      expectError(await monster({ MonsterID: bad }), 400, 'InvalidParameter', 'MonsterID');
    }
    expectError(await monster({}), 400, 'MissingParameter', 'MonsterID');
    for (const ok of ['2147483647', '-2147483648', ' 7 ', '+7', '007']) {
      const answer = await monster({ MonsterID: ok });
      expect([200, 404]).toContain(answer.status);
      if (answer.status === 404) expect(readError(answer.body).code).toBe('NotFound');
    }
    const globals = (n: string) => call(svc.url, binding, HUNTING, 'GetMonsterGlobals', { ...creds(), MonsterID: '1', NumberOfGlobals: n });
    expectError(await globals('0'), 400, 'InvalidParameter', 'NumberOfGlobals');
    expectError(await globals('-5'), 400, 'InvalidParameter', 'NumberOfGlobals');
    expect((await globals('2147483647')).status).toBe(200);
  });

  test('a parameter given twice is InvalidParameter (DevID/DevKey twice: AuthenticationFailed); unknown ones are ignored', async () => {
    const raw = (pairs: [string, string][]) => {
      const body = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
      return binding === 'get' ? send(`${svc.url}${WEAPONS}/GetWeapons?${body}`) : postForm(`${WEAPONS}/GetWeapons`, body);
    };
    const c: [string, string][] = [['DevID', String(svc.key.devId)], ['DevKey', svc.key.devKey]];
    expectError(await raw([...c, ['SearchWord', 'a'], ['SearchWord', 'b']]), 400, 'InvalidParameter', 'SearchWord');
    expectError(await raw([...c, ['SearchWord', ''], ['SearchWord', '']]), 400, 'InvalidParameter', 'SearchWord');
    expectError(await raw([...c, ['DevKey', svc.key.devKey]]), 403, 'AuthenticationFailed');
    expectError(await raw([...c, ['DevID', String(svc.key.devId)]]), 403, 'AuthenticationFailed');
    expect((await raw([...c, ['Other', '1'], ['Other', '2'], ['searchword', 'x'], ['SearchWord', 'a']])).status).toBe(200);
    const many: [string, string][] = Array.from({ length: 1500 }, (_, i) => [`p${i}`, 'v']);
    expect((await raw([...c, ...many])).status).toBe(200);
  });
});

describe('HTTP POST bodies', () => {
  const path = `${WEAPONS}/GetWeapons`;
  const body = () => formBody({ ...creds(), SearchWord: 'a' });

  test('anything but a form is UnsupportedMediaType', async () => {
    // application/json is the JSON binding's (test/json-binding.test.ts).
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'text/xml; charset=utf-8', 'application/soap+xml', 'form', '', 'application/x-www-form-urlencoded; charset=no-such-charset']) {
      const answer = await send(svc.url + path, { method: 'POST', headers: type ? { 'Content-Type': type } : {}, body: new TextEncoder().encode(body()) });
      expectError(answer, 415, 'UnsupportedMediaType');
    }
    expect((await postForm(path, body(), { 'Content-Type': 'Application/X-WWW-Form-URLEncoded ; Charset="UTF-8"' })).status).toBe(200);
  });

  test('a body that is not valid UTF-8 is BadRequest; a declared charset is honoured', async () => {
    const bytes = Buffer.concat([Buffer.from(`${body()}&SearchWord2=`), Buffer.from([0xff, 0xfe, 0xc3])]);
    expectError(await postForm(path, new Uint8Array(bytes)), 400, 'BadRequest');
    const latin1 = Buffer.concat([Buffer.from(`${formBody(creds())}&SearchWord=`), Buffer.from([0xe9])]);
    expect((await postForm(path, new Uint8Array(latin1), { 'Content-Type': `${FORM}; charset=iso-8859-1` })).status).toBe(200);
  });

  test(`a body over SVAPI_MAX_BODY is RequestTooLarge (413), declared or chunked`, async () => {
    const over = `${body()}&pad=${'x'.repeat(svc.config.SVAPI_MAX_BODY)}`;
    expectError(await postForm(path, over), 413, 'RequestTooLarge');
    // Chunked, with no Content-Length: counted as it arrives.
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(svc.config.SVAPI_MAX_BODY / 8)));
        controller.close();
      },
    });
    expectError(await send(svc.url + path, { method: 'POST', headers: { 'Content-Type': FORM }, body: stream, duplex: 'half' } as RequestInit), 413, 'RequestTooLarge');
    // Just under the limit is read.
    const under = `${body()}&pad=`;
    expect((await postForm(path, under + 'x'.repeat(svc.config.SVAPI_MAX_BODY - under.length))).status).toBe(200);
  });

  test('compressed bodies: read when small, 413 for a bomb without inflating it, 415 for an unknown coding', async () => {
    expect((await postForm(path, new Uint8Array(zlib.gzipSync(body())), { 'Content-Encoding': 'gzip' })).status).toBe(200);
    expect((await postForm(path, new Uint8Array(zlib.deflateSync(body())), { 'Content-Encoding': 'deflate' })).status).toBe(200);
    // 32 MiB of zeros in about the body limit (gzip, deflate), and 1 GiB in about 200 KB (brotli):
    // inflated whole, the last would take seconds and a gigabyte of memory.
    const zeros = Buffer.alloc(32 * 1024 * 1024);
    const bombs = [['gzip', zlib.gzipSync(zeros, { level: 9 })], ['deflate', zlib.deflateSync(zeros, { level: 9 })], ['br', await brotliBomb(1024)]] as const;
    for (const [coding, bomb] of bombs) {
      expect(bomb.length).toBeLessThan(256 * 1024);
      // The service runs in this process: its CPU time, which a busy machine does not stretch as it
      // does the wall clock. Inflating the brotli bomb whole takes 2 s of it.
      const rss = process.memoryUsage().rss;
      const cpu = process.cpuUsage();
      const answer = await postForm(path, new Uint8Array(bomb), { 'Content-Encoding': coding });
      expectError(answer, 413, 'RequestTooLarge');
      expect(cpuMs(cpu)).toBeLessThan(1000);
      expect(process.memoryUsage().rss - rss).toBeLessThan(256 * 1024 * 1024);
      // The same bomb at the SOAP endpoint: a SOAP fault, as the version is known.
      const soapCpu = process.cpuUsage();
      const soap = await send(svc.url + WEAPONS, { method: 'POST', headers: { 'Content-Type': soapContentType('1.1'), 'Content-Encoding': coding }, body: new Uint8Array(bomb) });
      expect(soap.status).toBe(413);
      expect(readError(soap.body)).toMatchObject({ code: 'RequestTooLarge', faultCode: 'soap:Client' });
      expect(cpuMs(soapCpu)).toBeLessThan(1000);
    }
    expectError(await postForm(path, body(), { 'Content-Encoding': 'compress' }), 415, 'UnsupportedMediaType');
    expectError(await postForm(path, new Uint8Array(Buffer.from('not gzip at all')), { 'Content-Encoding': 'gzip' }), 400, 'BadRequest');
  });
});

describe('methods and paths', () => {
  test('methods other than GET and POST are 405 with Allow', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      for (const path of [WEAPONS, `${WEAPONS}/GetWeapons`, `${WEAPONS}/NoSuchOperation`]) {
        const answer = await send(svc.url + path, { method, headers: { 'Content-Type': FORM }, body: method === 'OPTIONS' ? undefined : formBody(creds()) });
        const error = expectError(answer, 405, 'MethodNotAllowed');
        expect(error.code).toBe('MethodNotAllowed');
        expect(answer.headers.get('allow')).toBe('GET, POST');
      }
    }
    // HEAD on an operation: 405 as well, with no body.
    const head = await fetch(`${svc.url}${WEAPONS}/GetWeapons`, { method: 'HEAD' });
    expect(head.status).toBe(405);
  });

  test('paths: unknown operation 404, undecodable path 400, control characters come back escaped', async () => {
    expectError(await send(`${svc.url}${WEAPONS}/getweapons?${formBody(creds())}`), 404, 'UnknownOperation');
    expectError(await send(`${svc.url}/api/nothing.asmx/GetWeapons`), 404, 'NotFound');
    expectError(await send(`${svc.url}${WEAPONS}/%E0%A4%A`), 400, 'BadRequest');
    expectError(await send(`${svc.url}${WEAPONS}/%`), 400, 'BadRequest');
    expectError(await send(`${svc.url}${WEAPONS}/Get%01%00Weapons`), 404, 'UnknownOperation');
    expectError(await send(`${svc.url}${WEAPONS}/%3Cscript%3E`), 404, 'UnknownOperation');
    expect((await send(`${svc.url}${WEAPONS}/GetWeapons?${formBody(creds())}&SearchWord=%FF%FE`)).status).toBe(200);
  });

  test('a URL longer than Node accepts is refused by the server itself (431)', async () => {
    const answer = await send(`${svc.url}${WEAPONS}/GetWeapons?SearchWord=${'a'.repeat(20_000)}`);
    expect(answer.status).toBe(431);
  });
});

describe('slow clients', () => {
  let app: ServedApp;
  beforeAll(async () => {
    app = await serveOver(svc.db, { SVAPI_HEADERS_TIMEOUT_MS: '500', SVAPI_REQUEST_TIMEOUT_MS: '1000' });
  });
  afterAll(() => app.close());

  /** Opens a connection, sends `first`, then one byte of `dribble` every `everyMs` until the server closes it. */
  function dribble(first: string, trickle: string, everyMs: number): Promise<{ closedAfter: number; sent: number; response: string }> {
    return new Promise((resolve, reject) => {
      const { port } = new URL(app.url);
      const socket = net.connect(Number(port), '127.0.0.1');
      const started = Date.now();
      let response = '';
      let sent = 0;
      let timer: NodeJS.Timeout | undefined;
      const give = setTimeout(() => {
        socket.destroy();
        reject(new Error('the server kept the connection open'));
      }, 30_000);
      socket.on('connect', () => {
        socket.write(first);
        timer = setInterval(() => {
          if (sent < trickle.length && socket.writable) socket.write(trickle[sent++]);
        }, everyMs);
      });
      socket.on('data', (d) => (response += d));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        clearTimeout(give);
        resolve({ closedAfter: Date.now() - started, sent, response });
      });
    });
  }

  test('headers sent byte by byte are cut off after the headers time-out', async () => {
    const headers = `Host: x\r\nUser-Agent: ${'slow'.repeat(50)}\r\nX-More: ${'y'.repeat(100)}\r\n\r\n`;
    const result = await dribble(`GET ${WEAPONS}?wsdl HTTP/1.1\r\n`, headers, 50);
    expect(result.closedAfter).toBeGreaterThanOrEqual(450);
    // Sending them all would take 16 s; a loaded machine may be late by seconds, not by 8.
    expect(result.closedAfter).toBeLessThan(8000);
    expect(result.sent).toBeLessThan(headers.length);
    expect(result.response).toMatch(/^HTTP\/1\.1 408|^$/);
  });

  test('a body sent byte by byte is cut off after the request time-out', async () => {
    const form = formBody({ ...creds(), SearchWord: 'a' });
    const result = await dribble(`POST ${WEAPONS}/GetWeapons HTTP/1.1\r\nHost: x\r\nContent-Type: ${FORM}\r\nContent-Length: ${form.length}\r\n\r\n`, form, 200);
    expect(form.length * 200).toBeGreaterThan(12_000);
    expect(result.closedAfter).toBeGreaterThanOrEqual(900);
    // Sending it all would take over 12 s; a loaded machine may be late by seconds, not by 8.
    expect(result.closedAfter).toBeLessThan(9000);
    expect(result.sent).toBeLessThan(form.length);
    expect(result.response).not.toMatch(/^HTTP\/1\.1 200/);
  });

  test('the server still answers afterwards', async () => {
    expect((await call(app.url, 'get', WEAPONS, 'GetWeapons', { ...creds(), SearchWord: 'a' })).status).toBe(200);
  });

  test('the production server gets the configured time-outs', () => {
    expect(app.server.headersTimeout).toBe(500);
    expect(app.server.requestTimeout).toBe(1000);
    expect(app.server.keepAliveTimeout).toBeLessThanOrEqual(5000);
    expect(svc.server.headersTimeout).toBe(10_000);
    expect(svc.server.requestTimeout).toBe(30_000);
  });
});

test('a SOAP envelope as an HTTP POST form is still just an unknown parameter', async () => {
  const answer = await postForm(`${WEAPONS}/GetWeapons`, formBody({ ...creds(), xml: envelope('1.1', 'GetWeapons', creds()) }));
  expect(answer.status).toBe(200);
});
