import cluster from 'node:cluster';
import client from 'prom-client';
import type { Knex } from 'knex';
import type { ResultCache } from './cache/result-cache';
import type { LimitStore } from './auth/limit-store';
import type { InFlightLimit } from './pipeline/in-flight';
import type { EventLoopGuard } from './pipeline/event-loop-guard';
import type { DbQueue } from './pipeline/db-queue';
import { REFUSAL_REASONS, type OverloadReport } from './pipeline/overload-report';
import { instanceScrape } from './metrics-cluster';
import { readPoolFigures } from './db/read-pool';

/** What the access log knows about a finished request, also what the request metrics count. */
export interface RequestRecord {
  operation: string;
  binding: string;
  outcome: string;
  durationMs: number;
}

export interface Metrics {
  registry: client.Registry;
  observe(r: RequestRecord): void;
  /** The text of GET /metrics: this process's registry, or in a cluster worker the whole instance's. */
  scrape(): Promise<string>;
}

/** What else a process counts, when it has it: shared limits' state and what decides overload. */
export interface MetricSources {
  limits?: LimitStore;
  overload?: { limit: InFlightLimit; loop: EventLoopGuard; dbQueue: DbQueue; report: OverloadReport };
}

/**
 * Prometheus metrics of one app, in a registry of its own (several apps in one process, as in
 * the tests, do not collide). Labels come from fixed sets only: operation names from the
 * catalogue ('none' outside an operation), binding names and ServiceError codes.
 */
export function createMetrics(knex: Knex, cache?: ResultCache, sources: MetricSources = {}): Metrics {
  const { limits, overload } = sources;
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  // Counted per request in plain numbers (`series` below), given to prom-client when scraped: its
  // own inc builds and hashes the label set on every call. The durations are observed through
  // prom-client's Histogram itself, which has no public way to be given counts per bucket, but in
  // batches (`times` below): a call there on every request cost a cached answer 4-5 us of its 50
  // (docs/performance.md, issue 18, sixteenth pass), in a loop of a batch 0.4 us a value.
  type Series = { labels: { operation: string; binding: string; outcome: string }; count: number };
  /** One operation and binding: its duration series, whatever the outcome, and its count series by outcome. */
  type Pair = { time: Durations; byOutcome: Map<string, Series> };
  const series: Series[] = [];
  const times: Durations[] = [];
  // A request's series are found by its label values themselves (strings of fixed sets, whose hashes
  // V8 keeps), not by a key made for it: operation, then binding, then outcome.
  const pairOf = new Map<string, Map<string, Pair>>();
  new client.Counter({
    name: 'svapi_requests_total',
    help: 'Requests answered, by operation, binding and outcome (OK or the error code)',
    labelNames: ['operation', 'binding', 'outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of series) this.inc(s.labels, s.count);
    },
  });
  const duration = new client.Histogram({
    name: 'svapi_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by operation and binding',
    labelNames: ['operation', 'binding'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
    collect() {
      for (const t of times) t.observeWaiting();
    },
  });
  // The reads' pool (db/read-pool.ts): all zero until the first read opens it.
  const gauge = (name: string, help: string, read: (p: ReturnType<typeof readPoolFigures>) => number) => new client.Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read(readPoolFigures(knex)));
    },
  });
  gauge('svapi_db_pool_used', 'Database connections in use', (p) => p.used);
  gauge('svapi_db_pool_free', 'Database connections open and idle', (p) => p.idle);
  gauge('svapi_db_pool_pending', 'Requests waiting for a database connection', (p) => p.waiting);
  if (cache) {
    const counter = (name: string, help: string, read: () => number) => new client.Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
    counter('svapi_cache_hits_total', 'Answers served from the answer cache', () => cache.hits);
    counter('svapi_cache_misses_total', 'Answers read from the database and stored in the answer cache', () => cache.misses);
    new client.Gauge({ name: 'svapi_cache_bytes', help: 'Size of the cached answers', registers: [registry], collect() { this.set(cache.bytes); } });
  }
  if (limits?.sharedUp !== undefined) {
    new client.Gauge({
      name: 'svapi_shared_limits_up',
      help: '1 while the limits are counted in Redis (SVAPI_REDIS_URL), 0 while this host counts them because Redis does not answer',
      registers: [registry],
      // Summed over a host's workers this would read 2 with one of them down: the instance is up when all are.
      aggregator: 'min',
      collect() { this.set(limits.sharedUp ? 1 : 0); },
    });
  }
  if (overload) {
    const { limit, loop, dbQueue, report } = overload;
    const gauge = (name: string, help: string, read: () => number, aggregator?: 'max') =>
      new client.Gauge({ name, help, registers: [registry], ...(aggregator ? { aggregator } : {}), collect() { this.set(read()); } });
    gauge('svapi_requests_in_flight', 'Operation calls being worked on', () => limit.inFlight);
    gauge('svapi_max_in_flight', 'Hard ceiling on operation calls worked on at once (SVAPI_MAX_IN_FLIGHT)', () => limit.max);
    gauge('svapi_db_queue_waiting', 'Operation calls waiting for a database connection', () => dbQueue.waiting);
    gauge('svapi_event_loop_delay_seconds', 'Longest event-loop delay in the last 250 ms reading (the most of any worker)', () => loop.delayMs / 1000, 'max');
    new client.Counter({
      name: 'svapi_overload_refused_total',
      help: 'Operation calls refused with ServiceUnavailable for overload, by reason: event-loop (the loop is late), database-wait (waiting for a connection would make the call late), ceiling (SVAPI_MAX_IN_FLIGHT)',
      labelNames: ['reason'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const reason of REFUSAL_REASONS) this.inc({ reason }, report.refused[reason]);
      },
    });
  }
  return {
    registry,
    scrape: cluster.isWorker ? instanceScrape(registry) : () => registry.metrics(),
    observe(r) {
      let byBinding = pairOf.get(r.operation);
      if (!byBinding) pairOf.set(r.operation, (byBinding = new Map()));
      let pair = byBinding.get(r.binding);
      if (!pair) {
        pair = { time: new Durations(duration, { operation: r.operation, binding: r.binding }), byOutcome: new Map() };
        byBinding.set(r.binding, pair);
        times.push(pair.time);
      }
      let s = pair.byOutcome.get(r.outcome);
      if (!s) {
        s = { labels: { operation: r.operation, binding: r.binding, outcome: r.outcome }, count: 0 };
        pair.byOutcome.set(r.outcome, s);
        series.push(s);
      }
      s.count++;
      pair.time.add(r.durationMs / 1000);
    },
  };
}

/** Values waiting to be observed in one series of a histogram; each is, before a scrape reads it. */
class Durations {
  private readonly waiting = new Float64Array(256);
  private n = 0;

  constructor(private readonly histogram: client.Histogram<'operation' | 'binding'>, private readonly labels: { operation: string; binding: string }) {}

  add(seconds: number): void {
    this.waiting[this.n++] = seconds;
    if (this.n === this.waiting.length) this.observeWaiting();
  }

  observeWaiting(): void {
    for (let i = 0; i < this.n; i++) this.histogram.observe(this.labels, this.waiting[i]);
    this.n = 0;
  }
}
