// Overload (SVAPI_MAX_IN_FLIGHT): beyond the calls a process works on at once, a call is refused
// at once with ServiceUnavailable and Retry-After, on every binding, before its body is read; the
// calls in flight are not disturbed, and once they finish calls are served again. Calls are held
// in flight by a database that stops answering (a frozen TCP proxy) and then resumes.

import http from 'node:http';
import type { ServedApp } from './support/serve';
import type { TcpProxy } from './support/tcp-proxy';
import { serveBehindProxy, type ServedBehindProxy } from './support/behind-proxy';
import { BINDINGS, call, envelope, readError, readResult, send, serviceFault, soapContentType, WEAPONS, type Answer } from './support/bindings';
import { until } from './support/wait';

const MAX_IN_FLIGHT = 2;
let served: ServedBehindProxy;
let proxy: TcpProxy;
let app: ServedApp;
let key: { devId: number; devKey: string };

beforeAll(async () => {
  served = await serveBehindProxy('overload', {
    SVAPI_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
    // Every call reaches the database; the held ones wait as long as the test needs.
    SVAPI_CACHE_MB: '0',
    SVAPI_KEY_CACHE_MS: '0',
    SVAPI_DB_TIMEOUT_MS: '60000',
  });
  ({ proxy, app, key } = served);
});
afterAll(() => served?.close());

const params = (word = 'a') => ({ DevID: String(key.devId), DevKey: key.devKey, SearchWord: word });

async function metric(name: string): Promise<number> {
  const text = (await send(`${app.url}/metrics`)).body;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no ${name} in /metrics`);
  return Number(line.split(' ')[1]);
}

/** Resolves once `n` calls are in flight (as the service counts them). */
async function inFlight(n: number): Promise<void> {
  await until(`${n} calls in flight`, async () => (await metric('svapi_requests_in_flight')) === n, 10_000);
}

async function expectServing() {
  for (const binding of BINDINGS) {
    const answer = await call(app.url, binding, WEAPONS, 'GetWeapons', params());
    expect({ binding, status: answer.status }).toEqual({ binding, status: 200 });
    expect(readResult(answer.body).children.length).toBeGreaterThan(0);
  }
}

function expectRefused(binding: string, answer: Answer) {
  const want = serviceFault(binding as never, 503);
  expect({ binding, status: answer.status, retryAfter: answer.headers.get('retry-after') })
    .toEqual({ binding, status: want.status, retryAfter: '1' });
  expect(readError(answer.body)).toMatchObject({ code: 'ServiceUnavailable', faultCode: want.faultCode });
}

/** A SOAP 1.2 call whose body never ends: answered without the service waiting for it. */
function callWithUnfinishedBody(): Promise<{ status: number; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${app.url}${WEAPONS}`, { method: 'POST', headers: { 'Content-Type': soapContentType('1.2'), 'Content-Length': '100000' } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, body });
      });
    });
    req.on('error', reject);
    req.write(envelope('1.2', 'GetWeapons', params()).slice(0, 100));
  });
}

test('beyond SVAPI_MAX_IN_FLIGHT a call is refused at once on every binding; the held calls finish, then calls are served again', async () => {
  await expectServing();
  expect(await metric('svapi_overload_refused_total')).toBe(0);

  proxy.freeze();
  const held = [call(app.url, 'soap11', WEAPONS, 'GetWeapons', params('b')), call(app.url, 'get', WEAPONS, 'GetWeapons', params('c'))];
  await inFlight(MAX_IN_FLIGHT);

  // The database is not answering: these come back only because they are refused up front.
  for (const binding of BINDINGS) expectRefused(binding, await call(app.url, binding, WEAPONS, 'GetWeapons', params()));
  const unfinished = await callWithUnfinishedBody();
  expect({ status: unfinished.status, retryAfter: unfinished.retryAfter }).toEqual({ status: 500, retryAfter: '1' });
  expect(readError(unfinished.body)).toMatchObject({ code: 'ServiceUnavailable', faultCode: 'env:Receiver' });
  // What is not an operation call is not counted.
  expect((await send(`${app.url}/healthz`)).status).toBe(200);
  expect((await send(`${app.url}${WEAPONS}?wsdl`)).status).toBe(200);
  expect((await send(`${app.url}/`)).status).toBe(200);
  expect(await metric('svapi_overload_refused_total')).toBe(5);
  expect(await metric('svapi_requests_in_flight')).toBe(MAX_IN_FLIGHT);

  proxy.resume();
  const answers = await Promise.all(held);
  expect(answers.map((a) => a.status)).toEqual([200, 200]);
  await inFlight(0);
  await expectServing();

  // Logged once as an overload, not once per refused call.
  const warnings = app.log.filter((l) => (l.level as number) >= 40);
  expect(warnings).toEqual([expect.objectContaining({ level: 40, msg: expect.stringMatching(/^overloaded/), maxInFlight: MAX_IN_FLIGHT })]);
  const refusedLines = app.log.filter((l) => l.msg === 'request' && l.outcome === 'ServiceUnavailable');
  expect(refusedLines.map((l) => l.binding).sort()).toEqual(['http-get', 'http-post', 'soap11', 'soap12', 'soap12']);
  expect(refusedLines.every((l) => l.level === 30)).toBe(true);
}, 30_000);
