import { WindowCounts, type SharedCounts, type Taken } from './window-counts';

/** The most points a process takes from the shared count at once, until requests outrun its leases. */
export const MAX_LEASE = 10;
/**
 * The most a lease grows to for a key whose requests outran its leases (each time they had to wait
 * for the shared count, the next lease may be twice as large), still never more than a tenth of
 * what the window has left.
 */
export const MAX_GROWN_LEASE = 1000;
/** A lease is at most this share of what the window still has, so leases shrink to one point near the limit. */
const LEASE_SHARE = 10;

/** Thrown when the key's window has no point left: RateLimited until it ends. */
export class LimitExceeded extends Error {
  constructor(readonly msLeft: number) {
    super('limit reached');
  }
}

/** One limit, counted per key (README: Deployment and scaling, "Limits"). */
export interface Counter {
  /**
   * Uses one point at once when this process holds one: true. Throws LimitExceeded when the window
   * is known to be used up. Undefined when only the shared count can tell (then `consume`).
   */
  consumeNow(key: string): true | undefined;
  /** Uses one point, asking the shared count when needed; rejects with LimitExceeded. */
  consume(key: string): Promise<void>;
  /** The key's shared count (no point used). */
  peek(key: string): Promise<Pick<Taken, 'used' | 'msLeft'>>;
}

interface Lease {
  /** Points this process holds and may use without asking. */
  points: number;
  /** When the window of the shared count ends, by this process's clock. */
  endsAt: number;
  /** What the shared count had left after the last take. */
  remaining: number;
  /** Points asked for in the last take. */
  asked: number;
  /** The most the next take asks for: MAX_LEASE, doubled each time requests had to wait for a take. */
  size: number;
  /** A request found no point at hand since the last take began. */
  outran: boolean;
  /** The shared count gave nothing: the window is used up. */
  spent: boolean;
}

/**
 * A limit whose count is shared (the cluster primary, Redis) without a round trip per request:
 * a process takes points in small batches (leases) and uses them locally. A lease is a tenth of
 * what the shared window still has, at most MAX_LEASE points (more for a key whose requests
 * outrun its leases: see take; or one for each request already waiting for that key when more
 * wait, and they use them as it comes) and at least one, so near the limit
 * every request is counted in the shared count itself, and the shared count never gives more
 * points than the limit in a window. When half a lease is used, the next is taken in the
 * background: a steady stream of requests does not wait for the shared count. `exact` counts
 * every point in the shared count (leases of one, taken when needed). Over this process's own
 * memory (WindowCounts, `--workers 1`) every point is counted at once, exactly.
 */
export class LeasedCounter implements Counter {
  private readonly leases = new Map<string, Lease>();
  private readonly taking = new Map<string, Promise<void>>();
  /** Requests waiting in `consume`, by key: a take brings a point for each of them. */
  private readonly waiting = new Map<string, number>();
  private sweepAt = 0;

  constructor(private readonly counts: SharedCounts, private readonly limit: number, private readonly windowMs: number, private readonly exact = false) {}

  consumeNow(key: string): true | undefined {
    if (this.counts instanceof WindowCounts) {
      const t = this.counts.takeNow(key, 1, this.limit);
      if (t.granted === 0) throw new LimitExceeded(t.msLeft);
      return true;
    }
    const now = Date.now();
    const lease = this.leases.get(key);
    if (!lease || lease.endsAt <= now) return undefined;
    if (lease.points > 0) {
      lease.points--;
      if (!this.exact && lease.asked > 1 && lease.points <= lease.asked / 2 && lease.remaining > 0 && !this.taking.has(key)) {
        void this.take(key);
      }
      return true;
    }
    if (lease.spent) throw new LimitExceeded(lease.endsAt - now);
    return undefined;
  }

  async consume(key: string): Promise<void> {
    // Each round either uses a point, or learns that none is left (consumeNow throws): points a
    // take brings may go to other requests waiting for the same key, then this one asks again.
    if (this.consumeNow(key)) return;
    this.waiting.set(key, (this.waiting.get(key) ?? 0) + 1);
    try {
      do await this.take(key, true);
      while (!this.consumeNow(key));
    } finally {
      const n = this.waiting.get(key)! - 1;
      if (n > 0) this.waiting.set(key, n);
      else this.waiting.delete(key);
    }
  }

  peek(key: string): Promise<Pick<Taken, 'used' | 'msLeft'>> {
    return this.counts.peek(key);
  }

  /**
   * One take at a time per key; requests that need it wait for the same one. `waited`: a request
   * found no point at hand in a lease of this window, so the requests outran the leases: the
   * next take asks for twice as much (up to MAX_GROWN_LEASE). At 64 connections on cached
   * answers, leases of 10 points meant several round trips to the cluster primary for every turn
   * of the event loop: a fifth of a worker's CPU went into the messages, and requests waited for
   * a busy primary.
   */
  private take(key: string, waited = false): Promise<void> {
    const now = Date.now();
    const lease = this.leases.get(key);
    const current = lease && lease.endsAt > now ? lease : undefined;
    if (waited && current) current.outran = true;
    let taking = this.taking.get(key);
    if (taking) return taking;
    const remaining = current ? current.remaining : this.limit;
    let size = current?.size ?? MAX_LEASE;
    if (current?.outran) {
      size = Math.min(MAX_GROWN_LEASE, size * 2);
      current.outran = false;
    }
    // A burst of requests waiting for one key (hundreds at once under load) is served by one take.
    const want = this.exact ? 1 : Math.max(1, Math.min(Math.max(size, this.waiting.get(key) ?? 0), Math.floor(remaining / LEASE_SHARE)));
    taking = this.counts.take(key, want, this.limit).then((t) => this.keep(key, t, want, size)).finally(() => this.taking.delete(key));
    this.taking.set(key, taking);
    return taking;
  }

  private keep(key: string, t: Taken, asked: number, size: number): void {
    const now = Date.now();
    let lease = this.leases.get(key);
    if (!lease || lease.endsAt <= now) {
      this.sweep(now);
      lease = { points: 0, endsAt: 0, remaining: 0, asked, size: MAX_LEASE, outran: false, spent: false };
      this.leases.set(key, lease);
    }
    lease.size = size;
    lease.points += t.granted;
    lease.endsAt = now + t.msLeft;
    lease.remaining = Math.max(0, this.limit - t.used);
    lease.asked = asked;
    lease.spent = t.granted === 0;
  }

  /** Leases whose window has ended are dropped at most once a window. */
  private sweep(now: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + this.windowMs;
    for (const [key, l] of this.leases) if (l.endsAt <= now) this.leases.delete(key);
  }
}
