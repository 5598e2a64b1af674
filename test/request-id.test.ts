// X-Request-Id on every response; the detail of a failure in the log under that id, never in
// the response (CONTRACT §7).

import { startService, type TestService } from './support/service';
import { serveOver, type ServedApp } from './support/serve';
import { BINDINGS, call, LEAKS, readError, send, serviceFault, soapContentType, WEAPONS } from './support/bindings';

let svc: TestService;
let logged: ServedApp;
beforeAll(async () => {
  svc = await startService();
  logged = await serveOver(svc.db, {}, { captureLog: true });
});
afterAll(async () => {
  await logged.close();
  await svc.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const creds = () => ({ DevID: String(svc.key.devId), DevKey: svc.key.devKey });

test('every kind of response carries a generated X-Request-Id', async () => {
  const base = svc.url;
  const big = 'x'.repeat(svc.config.SVAPI_MAX_BODY + 10);
  const requests: [string, Promise<{ status: number; headers: Headers }>][] = [
    ['index page', send(`${base}/`)],
    ['endpoint page', send(`${base}${WEAPONS}`)],
    ['operation page', send(`${base}${WEAPONS}?op=GetWeapons`)],
    ['WSDL', send(`${base}${WEAPONS}?wsdl`)],
    ['healthz', send(`${base}/healthz`)],
    ['readyz', send(`${base}/readyz`)],
    ['unknown path 404', send(`${base}/nowhere`)],
    ['unknown operation 404', send(`${base}${WEAPONS}/Nope`)],
    ['405 on endpoint', send(`${base}${WEAPONS}`, { method: 'PUT' })],
    ['405 on operation', send(`${base}${WEAPONS}/GetWeapons`, { method: 'DELETE' })],
    ['415', send(`${base}${WEAPONS}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })],
    ['413 SOAP', send(`${base}${WEAPONS}`, { method: 'POST', headers: { 'Content-Type': soapContentType('1.1') }, body: big })],
    ['413 HTTP POST', send(`${base}${WEAPONS}/GetWeapons`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `a=${big}` })],
    ['bad path encoding', send(`${base}${WEAPONS}/%E0%A4%A`)],
    ...BINDINGS.map((b) => [`${b} success`, call(base, b, WEAPONS, 'GetWeapons', { ...creds(), SearchWord: 'a' })] as [string, Promise<{ status: number; headers: Headers }>]),
    ...BINDINGS.map((b) => [`${b} fault`, call(base, b, WEAPONS, 'GetWeapons', { DevID: '1', DevKey: 'wrong' })] as [string, Promise<{ status: number; headers: Headers }>]),
  ];
  const ids = new Set<string>();
  for (const [what, pending] of requests) {
    const answer = await pending;
    const id = answer.headers.get('x-request-id');
    expect({ what, id: UUID.test(id ?? '') }).toEqual({ what, id: true });
    ids.add(id!);
  }
  expect(ids.size).toBe(requests.length);
});

test('the answers written without a body carry it too: 304 to a conditional GET, HEAD of a page, a compressed answer', async () => {
  const url = `${svc.url}${WEAPONS}/GetWeapons?DevID=${svc.key.devId}&DevKey=${encodeURIComponent(svc.key.devKey)}&SearchWord=a`;
  const first = await send(url);
  const etag = first.headers.get('etag');
  expect(etag).toBeTruthy();
  // A Cache-Control of its own, or fetch adds `no-cache` to a conditional request, which asks for the answer itself.
  const notModified = await send(url, { headers: { 'If-None-Match': etag!, 'Cache-Control': 'max-age=0' } });
  expect(notModified.status).toBe(304);
  expect(notModified.headers.get('x-request-id')).toMatch(UUID);
  expect(notModified.headers.get('etag')).toBe(etag);
  const head = await send(`${svc.url}/healthz`, { method: 'HEAD' });
  expect([head.status, head.headers.get('content-length'), head.body]).toEqual([200, '2', '']);
  expect(head.headers.get('x-request-id')).toMatch(UUID);
  const gzip = await send(`${svc.url}${WEAPONS}?wsdl`, { headers: { 'Accept-Encoding': 'gzip' } });
  expect([gzip.status, gzip.headers.get('vary')]).toEqual([200, 'Accept-Encoding']);
  expect(gzip.headers.get('x-request-id')).toMatch(UUID);
});

test('a short safe incoming X-Request-Id is kept; anything else is replaced', async () => {
  for (const id of ['abc-123', 'A.b_C-9', 'x'.repeat(64), '0e8c1a0f-1111-4222-8333-444455556666']) {
    for (const binding of BINDINGS) {
      const answer = await call(svc.url, binding, WEAPONS, 'GetWeapons', { ...creds(), SearchWord: 'a' }, { 'X-Request-Id': id });
      expect(answer.headers.get('x-request-id')).toBe(id);
    }
  }
  for (const id of ['x'.repeat(65), 'a b', '<script>', 'a;b', 'é', '', '../etc']) {
    const answer = await send(`${svc.url}/healthz`, { headers: { 'X-Request-Id': id } });
    expect(answer.headers.get('x-request-id')).toMatch(UUID);
  }
});

test('an internal failure is logged with its stack under the request id; the client sees only the code', async () => {
  // Break the database under the service: its statements now fail with an SQL error.
  await svc.db.knex.schema.renameTable('weapons', 'weapons_away');
  try {
    for (const binding of BINDINGS) {
      const answer = await call(logged.url, binding, WEAPONS, 'GetWeapons', { ...creds(), SearchWord: 'a' });
      const want = serviceFault(binding, 500);
      expect({ binding, status: answer.status }).toEqual({ binding, status: want.status });
      expect(readError(answer.body)).toEqual({ faultCode: want.faultCode, code: 'InternalError', message: 'The service failed to answer this request.', parameter: undefined });
      for (const leak of LEAKS) expect({ binding, leak: String(leak), leaked: leak.test(answer.body) }).toEqual({ binding, leak: String(leak), leaked: false });
      expect(answer.body).not.toMatch(/weapons_away|weapons"|42P01/);

      const id = answer.headers.get('x-request-id');
      const entry = logged.log.find((l) => l.requestId === id && l.level === 50);
      expect(entry).toBeDefined();
      const err = entry!.err as { message: string; stack: string };
      expect(err.message).toMatch(/relation "weapons" does not exist/);
      expect(err.stack).toMatch(/\n\s+at /);
    }
  } finally {
    await svc.db.knex.schema.renameTable('weapons_away', 'weapons');
  }
  const again = await call(logged.url, 'get', WEAPONS, 'GetWeapons', { ...creds(), SearchWord: 'a' });
  expect(again.status).toBe(200);
});

test('a path that does not decode is BadRequest, logged at warn, not an InternalError', async () => {
  const answer = await send(`${logged.url}${WEAPONS}/%E0%A4%A`);
  expect(answer.status).toBe(400);
  expect(readError(answer.body)).toMatchObject({ code: 'BadRequest' });
  const entry = logged.log.find((l) => l.requestId === answer.headers.get('x-request-id'));
  expect(entry).toMatchObject({ level: 40 });
});
