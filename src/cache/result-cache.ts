import { LRUCache } from 'lru-cache';

/** A rendered answer: small ones as text (sent in one write with the headers), large ones as bytes. */
export type Body = string | Buffer;

// A string's heap size: V8 keeps one byte per character for Latin-1 text, two otherwise; count two.
const sizeOf = (v: Body) => (typeof v === 'string' ? v.length * 2 : v.length);

/**
 * Rendered answers (response bodies) by request key, kept while the data they were read from is
 * current. The data changes only when a load commits, so an answer stays right until then; the
 * DataChangeWatcher invalidates the cache at that moment, and marks it unusable whenever it
 * cannot tell (database unreachable), so a stale or outage-hiding answer is never served.
 *
 * - Bounded by bytes (the bodies' lengths plus their keys), least recently used dropped first.
 * - Concurrent misses of one key share one database read.
 * - An answer read before an invalidation is not stored after it (generation check).
 */
export class ResultCache {
  private readonly lru: LRUCache<string, Body> | undefined;
  private readonly inflight = new Map<string, Promise<Body>>();
  private generation = 0;
  private usableUntil = 0;
  hits = 0;
  misses = 0;

  constructor(maxBytes: number, private readonly now: () => number = Date.now) {
    this.lru = maxBytes > 0
      ? new LRUCache<string, Body>({ maxSize: maxBytes, sizeCalculation: (v, k) => sizeOf(v) + k.length * 2 + 64 })
      : undefined;
  }

  get enabled(): boolean {
    return this.lru !== undefined;
  }

  get bytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }

  /** The cached body for `key`, when there is one that may be used now (no waiting: the hot path). */
  lookup(key: string): Body | undefined {
    if (!this.lru || this.now() >= this.usableUntil) return undefined;
    const hit = this.lru.get(key);
    if (hit !== undefined) this.hits++;
    return hit;
  }

  /** The cached body for `key`, or `make()`'s (stored when the data is known to be current). */
  async get(key: string, make: () => Promise<Body>): Promise<Body> {
    const hit = this.lookup(key);
    if (hit !== undefined) return hit;
    if (!this.lru || this.now() >= this.usableUntil) return make();
    const pending = this.inflight.get(key);
    if (pending) return pending;
    this.misses++;
    const generation = this.generation;
    const reading = make().then((body) => {
      if (generation === this.generation && this.now() < this.usableUntil) this.lru!.set(key, body);
      return body;
    });
    this.inflight.set(key, reading);
    try {
      return await reading;
    } finally {
      this.inflight.delete(key);
    }
  }

  /** The data changed (or may have): forget every answer, and any read still under way. */
  invalidate(): void {
    this.generation++;
    this.inflight.clear();
    this.lru?.clear();
  }

  /** The data is known current until `until` (ms since epoch); 0 disables the cache now. */
  trustUntil(until: number): void {
    if (until <= this.now()) this.invalidate();
    this.usableUntil = until;
  }
}
