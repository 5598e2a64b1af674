import { until } from './wait';
import type { SpawnedServe } from './spawn-serve';

/**
 * The pids of the processes of `on` that answered `n` GET requests to `path`, each on a
 * connection of its own (`Connection: close`), each expected to be 200; read from the access
 * log, whose lines carry `pid` (no response header gives process ids away).
 */
export async function servedBy(on: SpawnedServe, n: number, path: string, timeoutMs = 5_000): Promise<Set<number>> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${on.url}${path}`, { headers: { Connection: 'close' }, signal: AbortSignal.timeout(timeoutMs) });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    ids.push(res.headers.get('x-request-id')!);
  }
  const line = (id: string) => on.log.find((l) => l.requestId === id && l.msg === 'request');
  await until('the access log lines of the requests', () => ids.every(line), 5_000);
  return new Set(ids.map((id) => line(id)!.pid as number));
}
