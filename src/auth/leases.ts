import { WindowCounts, type SharedCounts, type Taken } from './window-counts';

/** A key's first lease in a window: one point, so requests that never meet in a process are counted exactly. */
export const FIRST_LEASE = 1;
/**
 * The most a lease grows to for a key whose requests meet in a process (each time two or more
 * waited for points at once, the next lease may be twice as large), still never more than a
 * tenth of what the window has left.
 */
export const MAX_GROWN_LEASE = 1000;
/** A lease is at most this share of what the window still has, so leases shrink to one point near the limit. */
export const LEASE_SHARE = 10;

/**
 * The most points of a key's window one process can hold unused (README: Deployment and scaling,
 * "Limits"): a lease brings at most a tenth of what the window has left (at least one point), and
 * the next is taken in the background only once at most half of the last is left.
 */
export function mostHeld(limit: number): number {
  const lease = Math.floor(limit / LEASE_SHARE);
  return Math.floor(lease / 2) + Math.max(FIRST_LEASE, lease);
}

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
  /** What the next take asks for (unless more requests wait): FIRST_LEASE, doubled each time requests met. */
  size: number;
  /** The shared count gave nothing: the window is used up. */
  spent: boolean;
}

/**
 * A limit whose count is shared (the cluster primary, Redis) without a round trip per request
 * where requests come together: a process takes points in batches (leases) and uses them locally.
 * A key's first lease in a window is one point, and so is every next one while the key's requests
 * come one at a time to this process: such requests are each counted in the shared count, exactly
 * (150 requests in turn at a limit of 100 get exactly 100 answers, however the processes share
 * them). When two or more of the key's requests wait for points at once (they meet), the next
 * lease is twice as large (up to MAX_GROWN_LEASE), or one point for each request waiting if more
 * wait; never more than a tenth of what the window still has, and at least one, so near the limit
 * every request is counted in the shared count itself. The shared count never gives more points
 * than the limit in a window. When half a lease of two or more is used, the next is taken in the
 * background: a busy key's stream of requests does not wait for the shared count. `exact` counts
 * every point in the shared count (leases of one, taken when needed). Over this process's own
 * memory (WindowCounts, `--workers 1`) every point is counted at once, exactly.
 */
export class LeasedCounter implements Counter {
  private readonly leases = new Map<string, Lease>();
  private readonly taking = new Map<string, Promise<void>>();
  /** Requests waiting in `consume`, by key: a take brings a point for each of them. */
  private readonly waiting = new Map<string, number>();
  /** Keys whose requests met (two or more waited at once) since their last take began. */
  private readonly met = new Set<string>();
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
    const waiting = (this.waiting.get(key) ?? 0) + 1;
    this.waiting.set(key, waiting);
    if (waiting > 1) this.met.add(key);
    try {
      do await this.take(key);
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
   * One take at a time per key; requests that need it wait for the same one. A key whose requests
   * met since the last take gets a lease twice as large (up to MAX_GROWN_LEASE). At 64
   * connections on cached answers, leases of 10 points meant several round trips to the cluster
   * primary for every turn of the event loop: a fifth of a worker's CPU went into the messages,
   * and requests waited for a busy primary. Sequential requests never meet: their leases stay at
   * one point, and every one is counted in the shared count.
   */
  private take(key: string): Promise<void> {
    let taking = this.taking.get(key);
    if (taking) return taking;
    const now = Date.now();
    const lease = this.leases.get(key);
    const current = lease && lease.endsAt > now ? lease : undefined;
    const remaining = current ? current.remaining : this.limit;
    let size = current?.size ?? FIRST_LEASE;
    if (this.met.delete(key)) size = Math.min(MAX_GROWN_LEASE, size * 2);
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
      lease = { points: 0, endsAt: 0, remaining: 0, asked, size: FIRST_LEASE, spent: false };
      this.leases.set(key, lease);
    }
    lease.size = size;
    lease.points += t.granted;
    lease.endsAt = now + t.msLeft;
    lease.remaining = Math.max(0, this.limit - t.used);
    lease.asked = asked;
    lease.spent = t.granted === 0;
  }

  /** Leases whose window has ended are dropped at most once a window, and the keys that met. */
  private sweep(now: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + this.windowMs;
    for (const [key, l] of this.leases) if (l.endsAt <= now) this.leases.delete(key);
    // A meeting not yet followed by a take (the take under way served them all) is forgotten too.
    this.met.clear();
  }
}
