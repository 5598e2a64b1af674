// `svapi serve --workers N`: one listening port served by N processes; a dead worker is replaced;
// SIGTERM stops them all and the primary exits 0. The process that answered is read from the
// access log, whose lines carry `pid` (no response header gives process ids away).

import { spawnServe, type SpawnedServe } from './support/spawn-serve';

let svc: SpawnedServe;
afterAll(async () => {
  await svc?.stop();
});

const target = () => `${svc.url}/API/hunting.asmx/GetMonster?DevID=${svc.key.devId}&DevKey=${encodeURIComponent(svc.key.devKey)}&MonsterID=1`;

/** Makes `n` requests, each on a connection of its own; the pids that answered them. */
async function servedBy(n: number): Promise<Set<number>> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(target(), { headers: { Connection: 'close' }, signal: AbortSignal.timeout(5_000) });
    expect(res.status).toBe(200);
    await res.text();
    ids.push(res.headers.get('x-request-id')!);
  }
  await new Promise((r) => setTimeout(r, 200));
  const pids = new Set<number>();
  for (const id of ids) {
    const line = svc.log.find((l) => l.requestId === id && l.msg === 'request');
    expect(line).toBeDefined();
    pids.add(line!.pid as number);
  }
  return pids;
}

test('--workers 2: requests are served by two processes, none of them the primary; a killed worker is replaced; SIGTERM exits 0', async () => {
  svc = await spawnServe(['--workers', '2']);
  const first = await servedBy(12);
  expect(first.size).toBe(2);
  expect(first.has(svc.child.pid!)).toBe(false);

  const [victim] = [...first];
  process.kill(victim, 'SIGKILL');
  const deadline = Date.now() + 20_000;
  let now = new Set<number>();
  while (Date.now() < deadline) {
    // A request that the primary handed to the worker as it died gets no answer: retry.
    now = await servedBy(6).catch(() => new Set<number>());
    if (now.size === 2 && !now.has(victim)) break;
    await new Promise((r) => setTimeout(r, 300));
  }
  expect(now.has(victim)).toBe(false);
  expect(now.size).toBe(2);
  expect(svc.log.some((l) => l.msg === 'worker died; starting another' && l.workerPid === victim)).toBe(true);

  svc.child.kill('SIGTERM');
  expect(await svc.exited).toEqual({ code: 0, signal: null });
  expect(svc.log.filter((l) => l.msg === 'shutting down').length).toBeGreaterThanOrEqual(2);
});
