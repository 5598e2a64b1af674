// Answers ended in a turn of the event loop are written together after it (src/http/turn-writes.ts):
// the headers are stored at once, the bytes go out once the turn has polled, every answer of the
// turn arrives whole, and one that cannot be sent (its client gone, or its end failing) costs only
// itself.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { endInTurn, endTurnAnswers } from '../src/http/turn-writes';

interface Got {
  status: number;
  body: string;
}

function get(port: number, path: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
}

/** A server whose handler is `handle`; closed after each test. */
async function serve(handle: http.RequestListener): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A response held until a later request answers it (`held`), so that both are ended in one turn. */
function holding(): { hold: (res: http.ServerResponse) => void; held: Promise<http.ServerResponse> } {
  let hold!: (res: http.ServerResponse) => void;
  const held = new Promise<http.ServerResponse>((resolve) => (hold = resolve));
  return { hold, held };
}

test('an answer is written after its turn, with the headers stored at once, and arrives whole', async () => {
  const seen: { headersSent: boolean; endedInTurn: boolean; endedAfter: Promise<boolean> }[] = [];
  const body = 'x'.repeat(100_000);
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(body.length) });
    endInTurn(res, body);
    seen.push({
      headersSent: res.headersSent,
      endedInTurn: res.writableEnded,
      endedAfter: new Promise((resolve) => setImmediate(() => resolve(res.writableEnded))),
    });
  });
  close = s.close;
  const got = await get(s.port, '/');
  expect(got).toEqual({ status: 200, body });
  expect(seen).toHaveLength(1);
  expect(seen[0].headersSent).toBe(true);
  expect(seen[0].endedInTurn).toBe(false);
  await expect(seen[0].endedAfter).resolves.toBe(true);
});

test('answers ended in one turn are all sent; one whose client has gone is left alone', async () => {
  const { hold, held } = holding();
  const s = await serve((req, res) => {
    if (req.url === '/first') return hold(res);
    if (req.url !== '/second') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      return endInTurn(res, 'later');
    }
    void held.then((first) => {
      // In one turn: the first client goes, then both answers are ended.
      first.socket?.destroy();
      first.writeHead(200, { 'Content-Type': 'text/plain' });
      endInTurn(first, 'never read');
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      endInTurn(res, 'second');
    });
  });
  close = s.close;
  const first = get(s.port, '/first');
  const firstFailed = expect(first).rejects.toThrow(/socket hang up|ECONNRESET/);
  await held;
  await expect(get(s.port, '/second')).resolves.toEqual({ status: 200, body: 'second' });
  await firstFailed;
  // The server goes on answering.
  await expect(get(s.port, '/later')).resolves.toEqual({ status: 200, body: 'later' });
}, 10_000);

test('an answer whose end throws is destroyed; the rest of its turn is sent', async () => {
  const { hold, held } = holding();
  const s = await serve((req, res) => {
    if (req.url === '/bad') return hold(res);
    void held.then((bad) => {
      // Node throws from end() when a strict Content-Length does not match the body.
      bad.strictContentLength = true;
      bad.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '50' });
      endInTurn(bad, 'too short');
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      endInTurn(res, 'good');
    });
  });
  close = s.close;
  const bad = get(s.port, '/bad');
  const badFailed = expect(bad).rejects.toThrow(/socket hang up|ECONNRESET|aborted/);
  await held;
  await expect(get(s.port, '/good')).resolves.toEqual({ status: 200, body: 'good' });
  await badFailed;
}, 10_000);

test('endTurnAnswers ends the waiting answers at once', async () => {
  let endedThen: boolean | undefined;
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    endInTurn(res, 'now');
    endTurnAnswers();
    endedThen = res.writableEnded;
  });
  close = s.close;
  await expect(get(s.port, '/')).resolves.toEqual({ status: 200, body: 'now' });
  expect(endedThen).toBe(true);
});
