// SIGTERM under load: the service stops accepting, answers every request it had accepted, closes
// its pool and exits 0; with SVAPI_DRAIN_MS it first answers /readyz 503 for that long, still serving.

import http from 'node:http';
import { spawnServe, type SpawnedServe } from './support/spawn-serve';
import { eventually, until } from './support/wait';

let svc: SpawnedServe;
afterEach(async () => {
  await svc?.stop();
});

interface Tally {
  ok: number;
  /** A response that started but was not a whole 200 answer. */
  failedAfterResponse: number;
  /** Errors before any response: the connection refused or closed before the request was read. */
  notAccepted: Record<string, number>;
  /** Requests sent before SIGTERM and answered 200 after it. */
  inFlightAtSignal: number;
}

function get(agent: http.Agent, url: string): Promise<{ status?: number; error?: string; responded: boolean }> {
  return new Promise((resolve) => {
    let responded = false;
    const req = http.get(url, { agent }, (res) => {
      responded = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode === 200 && body.includes('MonsterID') ? 200 : res.statusCode ?? 0, responded }));
      res.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message, responded }));
    });
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message, responded }));
  });
}

test('SIGTERM mid-load: no accepted request fails, exit code 0', async () => {
  svc = await spawnServe();
  const target = `${svc.url}/API/hunting.asmx/GetMonster?DevID=${svc.key.devId}&DevKey=${encodeURIComponent(svc.key.devKey)}&MonsterID=1`;
  const tally: Tally = { ok: 0, failedAfterResponse: 0, notAccepted: {}, inFlightAtSignal: 0 };
  let signalled = false;
  const loop = async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (;;) {
        const sentBeforeSignal = !signalled;
        const r = await get(agent, target);
        if (r.status === 200) {
          tally.ok++;
          if (sentBeforeSignal && signalled) tally.inFlightAtSignal++;
          continue;
        }
        if (r.responded || r.status !== undefined) tally.failedAfterResponse++;
        else tally.notAccepted[r.error!] = (tally.notAccepted[r.error!] ?? 0) + 1;
        if (signalled) return;
      }
    } finally {
      agent.destroy();
    }
  };
  const loops = Array.from({ length: 8 }, loop);
  await until('load under way', () => tally.ok > 20, 30_000);
  const okBefore = tally.ok;
  signalled = true;
  svc.child.kill('SIGTERM');
  const exit = await svc.exited;
  await Promise.all(loops);
  expect(okBefore).toBeGreaterThan(20);
  // Exit code 0: every request finished within the grace period (after it the rest are cut and the code is 1).
  expect(exit).toEqual({ code: 0, signal: null });
  expect(tally.failedAfterResponse).toBe(0);
  // Requests already sent when the signal came were answered, not dropped.
  expect(tally.inFlightAtSignal).toBeGreaterThan(0);
  // After the stop, new requests find no listener: refused, nothing else.
  for (const code of Object.keys(tally.notAccepted)) expect(['ECONNREFUSED', 'ECONNRESET']).toContain(code);
  expect(svc.log.some((l) => l.msg === 'shutting down')).toBe(true);
});

test('SVAPI_DRAIN_MS: after SIGTERM /readyz answers 503 while requests, on new connections too, are still answered; then exit 0', async () => {
  // Long enough for a readiness check and a request on a loaded machine, which must both come within it.
  const drainMs = 10_000;
  svc = await spawnServe([], { SVAPI_DRAIN_MS: String(drainMs) });
  const target = `${svc.url}/API/hunting.asmx/GetMonster?DevID=${svc.key.devId}&DevKey=${encodeURIComponent(svc.key.devKey)}&MonsterID=1`;
  const readyz = async () => {
    const res = await fetch(`${svc.url}/readyz`, { headers: { Connection: 'close' } });
    return { status: res.status, body: await res.text() };
  };
  expect((await readyz()).status).toBe(200);
  const signalled = Date.now();
  svc.child.kill('SIGTERM');
  expect(await eventually(async () => JSON.stringify(await readyz()) === JSON.stringify({ status: 503, body: 'shutting down' }), drainMs)).toBe(true);
  const during = await fetch(target, { headers: { Connection: 'close' } });
  expect([during.status, await during.text()]).toEqual([200, expect.stringContaining('<MonsterID>1</MonsterID>')]);
  // Both answers came within the drain, before the port closed.
  expect(Date.now() - signalled).toBeLessThan(drainMs);
  expect(await svc.exited).toEqual({ code: 0, signal: null });
  expect(Date.now() - signalled).toBeGreaterThanOrEqual(drainMs);
}, 120_000);
