import { readError } from './bindings';

export interface Credential { devId: number; devKey: string }

/**
 * `n` GetMonster calls over HTTP GET, the i-th to `bases[i % bases.length]`, each on a connection
 * of its own (so a cluster hands them to its workers in turn). Returns how many ended in each
 * outcome: `OK` or the error code.
 */
export async function tally(bases: string[], n: number, key: Credential, headers: Record<string, string> = {}): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const url = `${bases[i % bases.length]}/API/hunting.asmx/GetMonster?DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}&MonsterID=1`;
    const res = await fetch(url, { headers: { ...headers, Connection: 'close' }, signal: AbortSignal.timeout(5_000) });
    const body = await res.text();
    const outcome = res.status === 200 ? 'OK' : readError(body).code;
    counts[outcome] = (counts[outcome] ?? 0) + 1;
  }
  return counts;
}

/** The sum of a metric's samples whose labels include `labels`, from Prometheus text. */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}
