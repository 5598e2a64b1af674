import { LRUCache } from 'lru-cache';
import type { Answer } from '../http/answer';

/**
 * Rendered answers (response bodies, with their compressed forms) by request key, kept while the data they were read from is
 * current. The data changes only when a load commits, so an answer stays right until then; the
 * DataChangeWatcher invalidates the cache at that moment, and marks it unusable whenever it
 * cannot tell (database unreachable), so a stale or outage-hiding answer is never served.
 *
 * - Bounded by bytes (the bodies' lengths, their compressed forms as they are made, their keys),
 *   least recently used dropped first.
 * - Concurrent misses of one key share one database read.
 * - An answer read before an invalidation is not stored after it (generation check).
 */
export class ResultCache {
  private readonly lru: LRUCache<string, Answer> | undefined;
  private readonly inflight = new Map<string, Promise<Answer>>();
  private generation = 0;
  private usableUntil = 0;
  /** The data version the answers are read at, when known: it is part of their ETags. */
  dataVersion: number | undefined;
  hits = 0;
  misses = 0;

  constructor(maxBytes: number, private readonly now: () => number = Date.now) {
    this.lru = maxBytes > 0
      ? new LRUCache<string, Answer>({ maxSize: maxBytes, sizeCalculation: (v, k) => v.heapSize + k.length * 2 + 64 })
      : undefined;
  }

  get enabled(): boolean {
    return this.lru !== undefined;
  }

  get bytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }

  /** The cached body for `key`, when there is one that may be used now (no waiting: the hot path). */
  lookup(key: string): Answer | undefined {
    if (!this.lru || this.now() >= this.usableUntil) return undefined;
    const hit = this.lru.get(key);
    if (hit !== undefined) this.hits++;
    return hit;
  }

  /** The cached body for `key`, or `make()`'s (stored when the data is known to be current). */
  async get(key: string, make: () => Promise<Answer>): Promise<Answer> {
    const hit = this.lookup(key);
    if (hit !== undefined) return hit;
    if (!this.lru || this.now() >= this.usableUntil) return make();
    const pending = this.inflight.get(key);
    if (pending) return pending;
    this.misses++;
    const generation = this.generation;
    const reading = make().then((answer) => {
      if (generation === this.generation && this.now() < this.usableUntil) this.store(key, answer);
      return answer;
    });
    this.inflight.set(key, reading);
    try {
      return await reading;
    } finally {
      this.inflight.delete(key);
    }
  }

  private store(key: string, answer: Answer): void {
    const lru = this.lru!;
    lru.set(key, answer);
    if (lru.peek(key) !== answer) return; // larger than the whole cache
    // A compressed form added later is counted: set again (the cache sizes an entry when it is set).
    answer.keep(() => {
      if (lru.peek(key) !== answer) return;
      lru.delete(key);
      lru.set(key, answer);
    });
  }

  /** The data changed (or may have): forget every answer, and any read still under way. `version`: the data's version now, when known. */
  invalidate(version?: number): void {
    this.dataVersion = version;
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
