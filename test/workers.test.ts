// `svapi serve --workers N`: one listening port served by N processes; a dead worker is replaced;
// SIGTERM stops them all and the primary exits 0. The process that answered is read from the
// access log, whose lines carry `pid` (no response header gives process ids away).

import { spawnServe, type SpawnedServe } from './support/spawn-serve';
import { eventually, until } from './support/wait';

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
  const line = (id: string) => svc.log.find((l) => l.requestId === id && l.msg === 'request');
  await until('the access log lines of the requests', () => ids.every(line), 5_000);
  return new Set(ids.map((id) => line(id)!.pid as number));
}

test('--workers 2: requests are served by two processes, none of them the primary; a killed worker is replaced; SIGTERM exits 0', async () => {
  svc = await spawnServe(['--workers', '2']);
  const first = await servedBy(12);
  expect(first.size).toBe(2);
  expect(first.has(svc.child.pid!)).toBe(false);

  const [victim] = [...first];
  process.kill(victim, 'SIGKILL');
  let now = new Set<number>();
  // A request that the primary handed to the worker as it died gets no answer: retry.
  await eventually(async () => {
    now = await servedBy(6).catch(() => new Set<number>());
    return now.size === 2 && !now.has(victim);
  }, 20_000);
  expect(now.has(victim)).toBe(false);
  expect(now.size).toBe(2);
  expect(svc.log.some((l) => l.msg === 'worker died; starting another' && l.workerPid === victim)).toBe(true);

  svc.child.kill('SIGTERM');
  expect(await svc.exited).toEqual({ code: 0, signal: null });
  expect(svc.log.filter((l) => l.msg === 'shutting down').length).toBeGreaterThanOrEqual(2);
});
