// Operation calls in their usual spelling are routed before Express (src/bindings/router.ts); the
// rarer spellings still reach the same handlers through Express. Both must answer alike.

import { freshDatabase, type TestDatabase } from './support/db';
import { serveOver, type ServedApp } from './support/serve';
import { envelope, send, soapContentType } from './support/bindings';
import { seed } from '../seeds/sample';
import { createKey } from '../src/auth/keys';
import { until } from './support/wait';

let db: TestDatabase;
let app: ServedApp;
let key: { devId: number; devKey: string };

beforeAll(async () => {
  db = await freshDatabase();
  await seed(db.knex);
  key = await createKey(db.knex, 'front router');
  app = await serveOver(db, {}, { captureLog: true });
});
afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

const query = () => `DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}&MonsterID=5`;

test.each([
  ['usual spelling (front router)', '/API/hunting.asmx/GetMonster'],
  ['other letter case (front router)', '/api/HUNTING.asmx/GetMonster'],
  ['trailing slash (Express)', '/API/hunting.asmx/GetMonster/'],
  ['percent-encoded operation name (Express)', '/API/hunting.asmx/Get%4Donster'],
])('HTTP GET, %s: the same answer, request id and log line', async (_how, path) => {
  const reference = await send(`${app.url}/API/hunting.asmx/GetMonster?${query()}`);
  const answer = await send(`${app.url}${path}?${query()}`);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toBe('text/xml; charset=utf-8');
  expect(answer.body).toBe(reference.body);
  const id = answer.headers.get('x-request-id');
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  // The access log line is written as the response finishes, after the client may have read it.
  await until('the request\'s log line', () => app.log.some((l) => l.requestId === id), 15_000);
  expect(app.log.find((l) => l.requestId === id)).toMatchObject({ operation: 'GetMonster', binding: 'http-get', outcome: 'OK', status: 200, devId: key.devId });
});

test.each([
  ['usual spelling (front router)', '/API/hunting.asmx'],
  ['trailing slash (Express)', '/API/hunting.asmx/'],
])('SOAP 1.2, %s: the same envelope', async (_how, path) => {
  const call = (p: string) => send(`${app.url}${p}`, {
    method: 'POST',
    headers: { 'Content-Type': soapContentType('1.2') },
    body: envelope('1.2', 'GetMonster', { DevID: String(key.devId), DevKey: key.devKey, MonsterID: '5' }),
  });
  const [reference, answer] = [await call('/API/hunting.asmx'), await call(path)];
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toBe('application/soap+xml; charset=utf-8');
  expect(answer.body).toBe(reference.body);
  expect(answer.body).toContain('<MonsterID>5</MonsterID>');
});

test('what the front router does not take (other methods, pages, unknown paths) is answered by Express as before', async () => {
  const head = await send(`${app.url}/API/hunting.asmx`, { method: 'PUT', body: 'x' });
  expect(head.status).toBe(405);
  expect(head.headers.get('allow')).toBe('GET, POST');
  expect(head.headers.get('x-request-id')).toBeTruthy();
  expect((await send(`${app.url}/API/hunting.asmx?wsdl`)).body).toContain('wsdl:definitions');
  const missing = await send(`${app.url}/API/nothing.asmx/GetMonster?${query()}`);
  expect(missing.status).toBe(404);
  expect(missing.headers.get('x-request-id')).toBeTruthy();
});
