/**
 * The service's own view of a case's latency: `svapi_request_duration_seconds` (request parsed to
 * response flushed) read from its /metrics before and after the measured run. On a small machine
 * the client's p99 at 64 connections is mostly queueing (in the kernel, behind the other
 * connections, behind the load generator's own CPU); this says how much of it the service spent.
 */

const METRIC = 'svapi_request_duration_seconds_bucket';

/** Cumulative bucket counts by upper bound (seconds; Infinity for +Inf). */
export type Buckets = Map<number, number>;

const BINDING_LABELS: Record<string, string> = { 'SOAP 1.1': 'soap11', 'SOAP 1.2': 'soap12', 'HTTP GET': 'http-get' };

export function parseBuckets(metricsText: string, operation: string, binding: string): Buckets {
  const label = BINDING_LABELS[binding] ?? binding;
  const buckets: Buckets = new Map();
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith(METRIC)) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (labels.operation !== operation || labels.binding !== label) continue;
    const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
    buckets.set(le, Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return buckets;
}

export async function scrapeBuckets(origin: string, operation: string, binding: string): Promise<Buckets> {
  const res = await fetch(`${origin}/metrics`);
  if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
  return parseBuckets(await res.text(), operation, binding);
}

export interface ServiceLatency {
  requests: number;
  /** Upper bound (ms) of the histogram bucket holding the 50th and 99th percentile; null past the last bound. */
  p50AtMostMs: number | null;
  p99AtMostMs: number | null;
}

/** Percentile bounds of the requests counted between two scrapes. */
export function serviceLatency(before: Buckets, after: Buckets): ServiceLatency {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const delta = (le: number) => (after.get(le) ?? 0) - (before.get(le) ?? 0);
  const total = delta(Infinity);
  const bound = (q: number) => {
    if (total === 0) return null;
    const le = bounds.find((b) => delta(b) >= q * total)!;
    return Number.isFinite(le) ? Math.round(le * 1000 * 10) / 10 : null;
  };
  return { requests: total, p50AtMostMs: bound(0.5), p99AtMostMs: bound(0.99) };
}
