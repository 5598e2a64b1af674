// Overload: a call is refused with ServiceUnavailable and Retry-After, on every binding, when
// - the process works on SVAPI_MAX_IN_FLIGHT calls (the hard ceiling), before its body is read;
// - it has waited for a database connection until its deadline (5 x SVAPI_QUEUE_TARGET_MS);
//   a call whose client closes meanwhile leaves the queue instead (Aborted, not refused);
// - the event loop is overloaded (at the default SVAPI_MAX_EVENT_LOOP_DELAY_MS), before its body is read;
// - with the answer cache off, waiting for a database connection would make it late, before its body is read.
// A call that comes on a connection before its last refusal's Retry-After has passed waits until it has.
// The calls in flight are not disturbed, and once the overload ends calls are served again. Calls
// are held by a database that stops answering (a frozen TCP proxy) and then resumes.

import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ServedApp } from './support/serve';
import type { TcpProxy } from './support/tcp-proxy';
import { serveBehindProxy, type ServedBehindProxy } from './support/behind-proxy';
import { BINDINGS, call, envelope, readError, readResult, send, serviceFault, soapContentType, WEAPONS, type Answer } from './support/bindings';
import { until } from './support/wait';
import { metricSum } from './support/limits';
import { serveOver } from './support/serve';
import { loadConfig } from '../src/config';
import { holdMachine } from './support/machine-lock';
import { busyFor } from './support/busy';

const MAX_IN_FLIGHT = 2;
let served: ServedBehindProxy;
let proxy: TcpProxy;
let app: ServedApp;
let key: { devId: number; devKey: string };

let letGo: (() => void) | undefined;
// Its busy loop takes a core away from any test file beside it.
beforeAll(async () => {
  letGo = await holdMachine();
}, 600_000);
afterAll(() => letGo?.());
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

async function metric(name: string, labels: Record<string, string> = {}, url = app.url): Promise<number> {
  const text = (await send(`${url}/metrics`)).body;
  if (!text.includes(`\n${name}`)) throw new Error(`no ${name} in /metrics`);
  return metricSum(text, name, labels);
}

/** Resolves once `n` calls are in flight (as the service counts them). */
async function inFlight(n: number): Promise<void> {
  await until(`${n} calls in flight`, async () => (await metric('svapi_requests_in_flight')) === n, 10_000);
}

async function expectServing(url = app.url) {
  for (const binding of BINDINGS) {
    const answer = await call(url, binding, WEAPONS, 'GetWeapons', params());
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
function callWithUnfinishedBody(url = app.url): Promise<{ status: number; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${WEAPONS}`, { method: 'POST', headers: { 'Content-Type': soapContentType('1.2'), 'Content-Length': '100000' } }, (res) => {
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

/**
 * Another service on the proxied database, with the answer cache off (every call reads the
 * database) and `env`: calls held by a frozen database stay held as long as the test needs.
 */
function serveOverProxy(env: NodeJS.ProcessEnv): Promise<ServedApp> {
  return serveOver(served.db, { SVAPI_CACHE_MB: '0', SVAPI_KEY_CACHE_MS: '5000', SVAPI_DB_TIMEOUT_MS: '60000', ...env }, { databaseUrl: proxy.urlFor(served.db.url), captureLog: true });
}

test('the default guards: a ceiling far above normal use, a target wait of 200 ms, an event-loop delay of 500 ms', () => {
  const c = loadConfig({});
  expect([c.SVAPI_MAX_IN_FLIGHT, c.SVAPI_QUEUE_TARGET_MS, c.SVAPI_MAX_EVENT_LOOP_DELAY_MS]).toEqual([5000, 200, 500]);
});

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
  expect(await metric('svapi_overload_refused_total', { reason: 'ceiling' })).toBe(5);
  expect(await metric('svapi_overload_refused_total')).toBe(5);
  expect(await metric('svapi_requests_in_flight')).toBe(MAX_IN_FLIGHT);

  proxy.resume();
  const answers = await Promise.all(held);
  expect(answers.map((a) => a.status)).toEqual([200, 200]);
  await inFlight(0);
  await expectServing();

  // Logged once as an overload, not once per refused call.
  const warnings = app.log.filter((l) => (l.level as number) >= 40);
  expect(warnings).toEqual([expect.objectContaining({ level: 40, msg: 'overloaded: refusing operation calls with ServiceUnavailable', reason: 'ceiling' })]);
  const refusedLines = app.log.filter((l) => l.msg === 'request' && l.outcome === 'ServiceUnavailable');
  expect(refusedLines.map((l) => l.binding).sort()).toEqual(['http-get', 'http-post', 'soap11', 'soap12', 'soap12']);
  expect(refusedLines.every((l) => l.level === 30)).toBe(true);
}, 30_000);

test('a call waiting for a database connection is answered ServiceUnavailable at its deadline (5 x SVAPI_QUEUE_TARGET_MS), not left hanging', async () => {
  const two = await serveOverProxy({ SVAPI_DB_POOL_MAX: '2' });
  try {
    await expectServing(two.url);
    proxy.freeze();
    const held = [call(two.url, 'get', WEAPONS, 'GetWeapons', params('b')), call(two.url, 'get', WEAPONS, 'GetWeapons', params('c'))];
    await until('two calls in flight', async () => (await metric('svapi_requests_in_flight', {}, two.url)) === 2, 10_000);
    for (const binding of BINDINGS) {
      const answer = await call(two.url, binding, WEAPONS, 'GetWeapons', params());
      expectRefused(binding, answer);
      // It waited for a connection until its deadline (1 s at the default target), not refused at once.
      expect(answer.ms).toBeGreaterThanOrEqual(900);
    }
    expect(await metric('svapi_overload_refused_total', { reason: 'database-wait' }, two.url)).toBe(4);
    proxy.resume();
    expect((await Promise.all(held)).map((a) => a.status)).toEqual([200, 200]);
    await expectServing(two.url);
    expect(two.log.filter((l) => (l.level as number) >= 40).map((l) => [l.msg, l.reason]))
      .toEqual([['overloaded: refusing operation calls with ServiceUnavailable', 'database-wait']]);
  } finally {
    proxy.resume();
    await two.close();
  }
}, 30_000);

/** The status line of the one answer a raw socket gets, and when it came. */
function statusOf(socket: net.Socket): Promise<{ status: number; at: number }> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      if (m) resolve({ status: Number(m[1]), at: performance.now() });
    });
    socket.on('error', reject);
  });
}

test('a call that sat in its socket behind a long turn of the event loop counts that wait: refused at once, not after its whole deadline', async () => {
  const one = await serveOverProxy({ SVAPI_DB_POOL_MAX: '1' });
  const port = Number(new URL(one.url).port);
  const waiting = net.connect(port, '127.0.0.1');
  const connected = new Promise((resolve) => waiting.once('connect', resolve));
  try {
    await expectServing(one.url);
    await connected;
    const answered = statusOf(waiting);
    proxy.freeze();
    const holder = call(one.url, 'get', WEAPONS, 'GetWeapons', params('b'));
    await until('the connection taken', async () => (await metric('svapi_requests_in_flight', {}, one.url)) === 1, 10_000);
    // After the service has read the next call (in this listener's turn), the call on `waiting`
    // is sent and the loop stays busy 1.2 s, longer than any call may wait (1 s): it is read in
    // the next turn, the loop having never slept.
    let blockEnded = 0;
    one.server.once('request', () => {
      waiting.write(`GET ${WEAPONS}/GetWeapons?DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}&SearchWord=w HTTP/1.1\r\nHost: x\r\n\r\n`);
      busyFor(1200);
      blockEnded = performance.now();
    });
    const reader = call(one.url, 'get', WEAPONS, 'GetWeapons', params('r'));
    const late = await answered;
    expect(late.status).toBe(503);
    // Refused as it was read, not after waiting another second in the queue.
    expect(late.at - blockEnded).toBeLessThan(500);
    expect((await reader).status).toBe(503);
    proxy.resume();
    expect((await holder).status).toBe(200);
    await expectServing(one.url);
  } finally {
    proxy.resume();
    waiting.destroy();
    await one.close();
  }
}, 30_000);

test('a call whose client closes while it waits for a database connection leaves the queue: Aborted, not refused', async () => {
  // A deadline of 50 s: only the client's leaving can take the call out of the queue in this test.
  const two = await serveOverProxy({ SVAPI_DB_POOL_MAX: '2', SVAPI_QUEUE_TARGET_MS: '10000' });
  try {
    await expectServing(two.url);
    proxy.freeze();
    const held = [call(two.url, 'get', WEAPONS, 'GetWeapons', params('b')), call(two.url, 'get', WEAPONS, 'GetWeapons', params('c'))];
    await until('two calls in flight', async () => (await metric('svapi_requests_in_flight', {}, two.url)) === 2, 10_000);
    const leaving = new AbortController();
    const left = fetch(`${two.url}${WEAPONS}/GetWeapons?DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}&SearchWord=leaving`, { signal: leaving.signal })
      .then(() => 'answered', () => 'aborted');
    await until('a call waiting for a connection', async () => (await metric('svapi_db_queue_waiting', {}, two.url)) === 1, 10_000);
    leaving.abort();
    expect(await left).toBe('aborted');
    await until('the queue empty again', async () => (await metric('svapi_db_queue_waiting', {}, two.url)) === 0, 5_000);
    expect(await metric('svapi_requests_in_flight', {}, two.url)).toBe(2);
    proxy.resume();
    expect((await Promise.all(held)).map((a) => a.status)).toEqual([200, 200]);
    // Not a refusal for overload: the caller left.
    expect(await metric('svapi_overload_refused_total', {}, two.url)).toBe(0);
    expect(await metric('svapi_requests_total', { operation: 'GetWeapons', outcome: 'Aborted' }, two.url)).toBe(1);
    expect(two.log.filter((l) => l.msg === 'request' && l.outcome === 'Aborted').length).toBe(1);
    expect(two.log.filter((l) => (l.level as number) >= 40)).toEqual([]);
  } finally {
    proxy.resume();
    await two.close();
  }
}, 30_000);

/** Keeps this process's event loop busy `ms` at a time (yielding between) until stopped. */
function busyLoop(ms: number): () => void {
  let stopped = false;
  const turn = () => {
    if (stopped) return;
    busyFor(ms);
    setTimeout(turn, 1);
  };
  setTimeout(turn, 1);
  return () => { stopped = true; };
}

test('an overloaded event loop (at the default SVAPI_MAX_EVENT_LOOP_DELAY_MS) refuses calls before their body, and serves again once it keeps up', async () => {
  const atDefault = String(loadConfig({}).SVAPI_MAX_EVENT_LOOP_DELAY_MS);
  const plain = await serveOver(served.db, { SVAPI_MAX_EVENT_LOOP_DELAY_MS: atDefault }, { captureLog: true });
  try {
    await expectServing(plain.url);
    const stop = busyLoop(1_500);
    let refused: Answer | undefined;
    try {
      // Every call waits a whole busy turn: the loop is 1.5 s late, three times the default delay.
      await until('a call refused for the event loop', async () => {
        const answer = await call(plain.url, 'soap11', WEAPONS, 'GetWeapons', params());
        if (answer.status !== 200) refused = answer;
        return refused !== undefined;
      }, 20_000);
    } finally {
      stop();
    }
    expectRefused('soap11', refused!);
    expect(await metric('svapi_overload_refused_total', { reason: 'event-loop' }, plain.url)).toBeGreaterThan(0);
    await until('calls served again', async () => (await call(plain.url, 'get', WEAPONS, 'GetWeapons', params())).status === 200, 5_000);
    await expectServing(plain.url);
  } finally {
    await plain.close();
  }
}, 40_000);

/** An HTTP GET call on `agent`'s connection, and when its answer ended. */
function getOn(agent: http.Agent, url: string): Promise<{ status: number; retryAfter?: string; endedAt: number }> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, endedAt: performance.now() }));
    }).on('error', reject);
  });
}

test('a call that comes on a connection before its refusal\'s Retry-After has passed is taken up when it has; other connections are not held', async () => {
  const url = `${app.url}${WEAPONS}/GetWeapons?DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}&SearchWord=a`;
  const oneConnection = new http.Agent({ keepAlive: true, maxSockets: 1 });
  proxy.freeze();
  const held = [call(app.url, 'get', WEAPONS, 'GetWeapons', params('d')), call(app.url, 'get', WEAPONS, 'GetWeapons', params('e'))];
  try {
    await inFlight(MAX_IN_FLIGHT);
    const first = await getOn(oneConnection, url);
    expect({ status: first.status, retryAfter: first.retryAfter }).toEqual({ status: 503, retryAfter: '1' });
    // Sent at once on the same connection, and at once on a new one.
    const sameConnection = getOn(oneConnection, url);
    const otherConnection = await getOn(new http.Agent({ keepAlive: false }), url);
    expect(otherConnection.status).toBe(503);
    expect(otherConnection.endedAt - first.endedAt).toBeLessThan(500);
    const retried = await sameConnection;
    expect(retried.status).toBe(503);
    expect(retried.endedAt - first.endedAt).toBeGreaterThanOrEqual(950);
    // Taken up once Retry-After has passed, it is served when the overload is over.
    proxy.resume();
    expect((await Promise.all(held)).map((a) => a.status)).toEqual([200, 200]);
    await inFlight(0);
    const served = await getOn(oneConnection, url);
    expect(served.status).toBe(200);
    expect(served.endedAt - retried.endedAt).toBeGreaterThanOrEqual(950);
  } finally {
    proxy.resume();
    oneConnection.destroy();
  }
}, 30_000);

test('with the answer cache off, a call that would wait past its deadline for a database connection is refused before its body is read', async () => {
  // A target of 2 ms: no call waits more than 10 ms for a connection.
  const one = await serveOverProxy({ SVAPI_DB_POOL_MAX: '1', SVAPI_QUEUE_TARGET_MS: '2' });
  try {
    await expectServing(one.url);
    // The database stalls for 300 ms under one call: the queue learns that a call holds the
    // connection for tens of milliseconds, beyond the 10 ms any call may wait.
    proxy.freeze();
    const slow = call(one.url, 'get', WEAPONS, 'GetWeapons', params('b'));
    await until('the slow call in flight', async () => (await metric('svapi_requests_in_flight', {}, one.url)) === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.resume();
    expect((await slow).status).toBe(200);
    proxy.freeze();
    const holder = call(one.url, 'get', WEAPONS, 'GetWeapons', params('c'));
    await until('the connection taken', async () => (await metric('svapi_requests_in_flight', {}, one.url)) === 1, 10_000);
    const refusedBefore = await metric('svapi_overload_refused_total', { reason: 'database-wait' }, one.url);
    // Only the first 100 bytes of its envelope are ever sent.
    const unfinished = await callWithUnfinishedBody(one.url);
    expect({ status: unfinished.status, retryAfter: unfinished.retryAfter }).toEqual({ status: 500, retryAfter: '1' });
    expect(readError(unfinished.body)).toMatchObject({ code: 'ServiceUnavailable', faultCode: 'env:Receiver' });
    expect(await metric('svapi_overload_refused_total', { reason: 'database-wait' }, one.url)).toBe(refusedBefore + 1);
    proxy.resume();
    expect((await holder).status).toBe(200);
    await expectServing(one.url);
  } finally {
    proxy.resume();
    await one.close();
  }
}, 30_000);
