/**
 * A small seeded PRNG (mulberry32) with the helpers the generator needs. Only integer
 * arithmetic and exact float operations are used (no Math.log/exp/pow), so a seed gives the
 * same numbers, and the same files, on every platform and Node version.
 */
export class Rng {
  private state: number;

  /** A stream of its own per `stream` name, so one file's draws never shift another's. */
  constructor(seed: number, stream: string) {
    let h = (seed | 0) ^ 0x9e3779b9;
    for (let i = 0; i < stream.length; i++) h = Math.imul(h ^ stream.charCodeAt(i), 0x01000193);
    this.state = h | 0;
  }

  /** A generator from a raw mulberry32 state (scripts/make-sample-data.ts, whose files predate the streams). */
  static fromState(state: number): Rng {
    const rng = new Rng(0, '');
    rng.state = state | 0;
    return rng;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** In [0, 1), heavily skewed towards 0 (r^6): many small values, a few large ones. */
  low(): number {
    const r = this.next();
    const r3 = r * r * r;
    return r3 * r3;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}

/**
 * Draws indexes in proportion to fixed weights (binary search over the running sums), for
 * skewed choices among up to a few hundred thousand candidates without building pools.
 */
export class WeightedPicker {
  private readonly sums: Float64Array;

  constructor(weights: ArrayLike<number>) {
    this.sums = new Float64Array(weights.length);
    let total = 0;
    for (let i = 0; i < weights.length; i++) this.sums[i] = total += weights[i];
  }

  pick(rng: Rng): number {
    const target = rng.next() * this.sums[this.sums.length - 1];
    let lo = 0;
    let hi = this.sums.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sums[mid] > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
