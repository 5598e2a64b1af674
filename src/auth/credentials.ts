import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config';
import { errors } from '../errors';
import { keyMatches } from './keys';
import { readActiveKeyHash } from '../db/queries/keys';
import { LimitStore, WINDOW_SECONDS } from './limit-store';
import { LimitExceeded, type Counter } from './leases';

/** Most DevIDs whose key hash is cached; the least recently used is dropped beyond it. */
export const KEY_CACHE_ENTRIES = 10_000;
const FAILING_ADDRESSES = 100_000;

export type CredentialSettings = Pick<Config, 'SVAPI_KEY_CACHE_MS' | 'SVAPI_RATE_LIMIT' | 'SVAPI_AUTH_FAIL_LIMIT'>;

/**
 * Checks DevID/DevKey pairs for the bindings (CONTRACT §6) and applies the limits that go with
 * them. Every kind of bad credential throws the one AuthenticationFailed; a limit throws
 * RateLimited with the seconds until its window ends.
 *
 * - A valid DevID's stored key hash is cached for SVAPI_KEY_CACHE_MS (at most 5 s, so a
 *   revocation holds on every instance within 5 s), in a bounded LRU, together with the key that
 *   last matched it. A presented key equal to that one (compared in constant time) passes without
 *   hashing it again (SHA-256 through OpenSSL 3 was the largest cost of a cached answer); any other
 *   key is hashed and compared with the stored hash in constant time, so a wrong key is never
 *   accepted from the cache. Only pairs that checked out are cached; unknown and revoked DevIDs go
 *   to the database every time.
 * - SVAPI_RATE_LIMIT requests a minute per DevID (fixed one-minute windows).
 * - SVAPI_AUTH_FAIL_LIMIT failed credentials a minute per client address: the failure beyond the
 *   limit and every request from that address after it, a correct key included, are RateLimited
 *   until the window (one minute from the address's first failure) ends. Refusing correct keys
 *   too means a guesser learns nothing from the answers while blocked.
 *
 * Where the counts live is the LimitStore's business: this process, the host's cluster primary
 * or Redis. Which addresses failed lately is known per process, so where others count too, a
 * key that this process has not just accepted is also checked against the shared failure count.
 */
export class CredentialChecker {
  private readonly cache: LRUCache<number, CachedKey> | undefined;
  private readonly requests: Counter;
  private readonly failures: Counter;
  private readonly sharedCounts: boolean;
  private readonly failLimit: number;
  /** Addresses with a failed credential in the last window (see refuseBlocked). */
  private readonly failedLately = new LRUCache<string, true>({ max: FAILING_ADDRESSES, ttl: WINDOW_SECONDS * 1000 });

  constructor(private readonly knex: Knex, settings: CredentialSettings, store = LimitStore.local()) {
    this.cache = settings.SVAPI_KEY_CACHE_MS > 0
      ? new LRUCache<number, CachedKey>({ max: KEY_CACHE_ENTRIES, ttl: Math.min(settings.SVAPI_KEY_CACHE_MS, 5000), updateAgeOnGet: false })
      : undefined;
    this.requests = store.counter('requests', settings.SVAPI_RATE_LIMIT);
    // Failures are few and each must count everywhere at once (an address is blocked on every process).
    this.failures = store.counter('auth-failures', settings.SVAPI_AUTH_FAIL_LIMIT, true);
    this.sharedCounts = store.shared;
    this.failLimit = settings.SVAPI_AUTH_FAIL_LIMIT;
  }

  /**
   * The path of a cached answer: a key this process has just accepted (the one that last matched,
   * within SVAPI_KEY_CACHE_MS), from an address that has not failed lately, with a point of the
   * rate limit at hand in this process (its own count, or a lease of the shared one), is checked
   * and counted at once: true. Throws RateLimited beyond the limit. False when check() must
   * decide (nothing counted then).
   */
  checkedAtOnce(devId: number, devKey: string, clientAddress: string): boolean {
    if (this.mayBeBlocked(clientAddress)) return false;
    const cached = this.cache?.get(devId);
    if (!cached || !sameBytes(Buffer.from(devKey), cached.lastMatched)) return false;
    try {
      return this.requests.consumeNow(String(devId)) === true;
    } catch (e) {
      throw limited(e);
    }
  }

  /** Passes for a valid, unrevoked pair within its rate limit; throws otherwise. */
  async check(devId: number, devKey: string, clientAddress: string): Promise<void> {
    const blocked = this.refuseBlocked(clientAddress);
    if (blocked) await blocked;
    const cached = this.cache?.get(devId);
    const presented = Buffer.from(devKey);
    if (!cached || !sameBytes(presented, cached.lastMatched)) {
      const stored = cached?.hash ?? (await readActiveKeyHash(this.knex, devId));
      if (!keyMatches(devKey, stored)) {
        await this.fail(clientAddress);
        throw errors.auth();
      }
      // Another process may have seen this address fail: a correct key is refused while blocked there too.
      if (!blocked && this.sharedCounts) await this.blocked(clientAddress);
      // The entry keeps its age: a revocation still holds within SVAPI_KEY_CACHE_MS.
      if (cached) cached.lastMatched = presented;
      else this.cache?.set(devId, { hash: stored!, lastMatched: presented });
    }
    try {
      await this.requests.consume(String(devId));
    } catch (e) {
      throw limited(e);
    }
  }

  /**
   * Records a failed credential from an address. Throws RateLimited when it is one too many
   * (or the address is already blocked); the caller throws AuthenticationFailed otherwise.
   */
  async fail(clientAddress: string): Promise<void> {
    this.failedLately.set(clientAddress, true);
    await this.refuseBlocked(clientAddress);
    try {
      await this.failures.consume(clientAddress);
    } catch (e) {
      throw limited(e);
    }
  }

  /**
   * Throws (through the promise) when the address is blocked. An address with no failure in the
   * last window cannot be: then nothing is returned and the caller does not wait (the path of
   * nearly every request). While the list of failing addresses is full, every address is checked.
   */
  private refuseBlocked(clientAddress: string): Promise<void> | undefined {
    return this.mayBeBlocked(clientAddress) ? this.blocked(clientAddress) : undefined;
  }

  private mayBeBlocked(clientAddress: string): boolean {
    return this.failedLately.has(clientAddress) || this.failedLately.size >= FAILING_ADDRESSES;
  }

  private async blocked(clientAddress: string): Promise<void> {
    const state = await this.failures.peek(clientAddress);
    if (state.used > this.failLimit && state.msLeft > 0) throw limited(new LimitExceeded(state.msLeft));
  }
}

interface CachedKey {
  /** The stored SHA-256 of the DevID's key. */
  hash: Buffer;
  /** The presented key that last matched `hash`. */
  lastMatched: Buffer;
}

/** Constant-time equality for equal lengths (the length of a key is no secret: all are 43 characters). */
const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && crypto.timingSafeEqual(a, b);

function limited(e: unknown): Error {
  if (e instanceof LimitExceeded) return errors.rateLimited(Math.max(1, Math.ceil(e.msLeft / 1000)));
  return e instanceof Error ? e : new Error(String(e));
}
