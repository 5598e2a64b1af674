// `svapi serve` writes its access log in batches (src/log.ts createAccessLogger): a line still
// reaches stdout when no more traffic comes, and the lines waiting when the process stops are
// written before it exits.

import { spawnServe, type SpawnedServe } from './support/spawn-serve';
import { until } from './support/wait';

let svc: SpawnedServe;
afterAll(async () => {
  await svc?.stop();
});

const call = async (n: number) => {
  const res = await fetch(`${svc.url}/API/hunting.asmx/GetMonster?DevID=${svc.key.devId}&DevKey=${encodeURIComponent(svc.key.devKey)}&MonsterID=${n}`);
  expect(res.status).toBe(200);
  await res.text();
  return res.headers.get('x-request-id')!;
};
const logged = (id: string) => svc.log.some((l) => l.msg === 'request' && l.requestId === id);

test('a lone request is logged without more traffic; the lines waiting at SIGTERM are written before the exit', async () => {
  svc = await spawnServe(['--workers', '1']);
  const lone = await call(1);
  // Far less than 4 KB is waiting: only the periodic flush writes it.
  await until('the access-log line of a lone request', () => logged(lone), 5_000);

  const ids = [await call(2), await call(3)];
  svc.child.kill('SIGTERM');
  expect((await svc.exited).code).toBe(0);
  expect(ids.filter(logged)).toEqual(ids);
});
