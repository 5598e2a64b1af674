/** What a shared count said: points given to this process now, the key's count and the time left in its window. */
export interface Taken {
  /** Points given now (up to those asked for; 0 when the limit was reached). */
  granted: number;
  /** Points counted in the key's window, after this take: above the limit once a take was refused. */
  used: number;
  /** Milliseconds until the key's window ends. */
  msLeft: number;
}

/**
 * Where one limit's counts are kept (this process's memory, the cluster primary's, or Redis).
 * `take` gives up to `want` points of the key's window, never more than the limit leaves; a take
 * that gets none counts one point beyond the limit, so `used > limit` says the limit refused a
 * request in this window (what blocks an address after too many failed credentials).
 */
export interface SharedCounts {
  take(key: string, want: number, limit: number): Promise<Taken>;
  /** The key's count without taking (used 0 when it has none). */
  peek(key: string): Promise<Pick<Taken, 'used' | 'msLeft'>>;
}

/** Counts in fixed windows from a key's first point, in this process's memory. */
export class WindowCounts implements SharedCounts {
  private readonly windows = new Map<string, { used: number; endsAt: number }>();
  private sweepAt = 0;

  constructor(private readonly windowMs: number) {}

  takeNow(key: string, want: number, limit: number): Taken {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.endsAt <= now) {
      this.sweep(now);
      w = { used: 0, endsAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    const granted = Math.min(want, Math.max(0, limit - w.used));
    w.used += granted > 0 ? granted : 1;
    return { granted, used: w.used, msLeft: w.endsAt - now };
  }

  take(key: string, want: number, limit: number): Promise<Taken> {
    return Promise.resolve(this.takeNow(key, want, limit));
  }

  peekNow(key: string): Pick<Taken, 'used' | 'msLeft'> {
    const w = this.windows.get(key);
    const now = Date.now();
    return w && w.endsAt > now ? { used: w.used, msLeft: w.endsAt - now } : { used: 0, msLeft: 0 };
  }

  peek(key: string): Promise<Pick<Taken, 'used' | 'msLeft'>> {
    return Promise.resolve(this.peekNow(key));
  }

  /** Keys whose window has ended are dropped at most once a window, when a new window starts. */
  private sweep(now: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + this.windowMs;
    for (const [key, w] of this.windows) if (w.endsAt <= now) this.windows.delete(key);
  }
}
