import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
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
  /** The key hashes being read from the database now, by DevID: concurrent calls share one read. */
  private readonly reading = new Map<number, Promise<StoredHash>>();
  private readonly cacheMs: number;

  constructor(private readonly knex: Knex, settings: CredentialSettings, store = LimitStore.local()) {
    this.cacheMs = Math.min(settings.SVAPI_KEY_CACHE_MS, 5000);
    this.cache = this.cacheMs > 0
      ? new LRUCache<number, CachedKey>({ max: KEY_CACHE_ENTRIES, ttl: this.cacheMs, updateAgeOnGet: false })
      : undefined;
    this.requests = store.counter('requests', settings.SVAPI_RATE_LIMIT);
    // Failures are few and each must count everywhere at once (an address is blocked on every process).
    this.failures = store.counter('auth-failures', settings.SVAPI_AUTH_FAIL_LIMIT, true);
    this.sharedCounts = store.shared;
    this.failLimit = settings.SVAPI_AUTH_FAIL_LIMIT;
  }

  /**
   * Passes for a valid, unrevoked pair within its rate limit; throws otherwise. Decides every case
   * itself: a caller that tried checkNow first (authenticate) does not repeat it here.
   */
  async check(devId: number, devKey: string, clientAddress: string): Promise<void> {
    const blocked = this.refuseBlocked(clientAddress);
    if (blocked) await blocked;
    const cached = this.cache?.get(devId);
    if (cached) this.refreshWhenHalfGone(devId);
    if (!cached || !sameKey(devKey, cached.lastMatched)) {
      const read = cached ? undefined : await this.storedHash(devId);
      const stored = cached ? cached.hash : read!.hash;
      if (!keyMatches(devKey, stored)) {
        await this.fail(clientAddress);
        throw errors.auth();
      }
      // Another process may have seen this address fail: a correct key is refused while blocked there too.
      if (!blocked && this.sharedCounts) await this.blocked(clientAddress);
      // The entry keeps its age: a revocation still holds within SVAPI_KEY_CACHE_MS.
      if (cached) cached.lastMatched = devKey;
      else this.keep(devId, { hash: stored!, lastMatched: devKey }, read!.at);
    }
    try {
      await this.requests.consume(String(devId));
    } catch (e) {
      throw limited(e);
    }
  }

  /**
   * The check decided without waiting, as nearly every call of a busy DevID can be: true when the
   * pair passed and a point of this process's lease was used; undefined when only `check` can tell
   * (nothing was used then). Throws RateLimited when the DevID's window is known to be used up.
   * Spares a cached answer the three promises of `check`, `consume` and their caller.
   */
  checkNow(devId: number, devKey: string, clientAddress: string): true | undefined {
    if (this.mayBeBlocked(clientAddress)) return undefined;
    const cached = this.cache?.get(devId);
    if (!cached || !sameKey(devKey, cached.lastMatched)) return undefined;
    this.refreshWhenHalfGone(devId);
    try {
      return this.requests.consumeNow(String(devId));
    } catch (e) {
      throw limited(e);
    }
  }

  /**
   * The DevID's stored key hash, read once for every call that asks while it is being read (after
   * a key expires from the cache, every call of a busy DevID would otherwise wait for a database
   * connection of its own, behind the operations holding them).
   */
  private storedHash(devId: number): Promise<StoredHash> {
    let read = this.reading.get(devId);
    if (!read) {
      const at = performance.now();
      read = readActiveKeyHash(this.knex, devId).then((hash) => ({ hash, at })).finally(() => this.reading.delete(devId));
      this.reading.set(devId, read);
    }
    return read;
  }

  /** Cached until SVAPI_KEY_CACHE_MS after the read started: a revocation holds within that time. */
  private keep(devId: number, entry: CachedKey, readAt: number): void {
    const ttl = Math.floor(this.cacheMs - (performance.now() - readAt));
    if (ttl > 0) this.cache?.set(devId, entry, { ttl });
  }

  /** A cached DevID past half its time in the cache is read again, so a busy DevID never finds its entry gone. */
  private refreshWhenHalfGone(devId: number): void {
    if (this.cache!.getRemainingTTL(devId) < this.cacheMs / 2) this.refresh(devId);
  }

  /** Reads a cached DevID's hash again in the background; the entry stays while it is unchanged. */
  private refresh(devId: number): void {
    if (this.reading.has(devId)) return;
    this.storedHash(devId).then(({ hash, at }) => {
      const cached = this.cache?.get(devId);
      if (cached && hash && sameBytes(hash, cached.hash)) this.keep(devId, cached, at);
      else this.cache?.delete(devId);
    }, () => {
      // The next call that finds the entry gone reads it again and sees the error.
    });
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

interface StoredHash {
  hash: Buffer | undefined;
  /** When the read started (performance.now()). */
  at: number;
}

interface CachedKey {
  /** The stored SHA-256 of the DevID's key. */
  hash: Buffer;
  /** The presented key that last matched `hash`. */
  lastMatched: string;
}

/**
 * Constant-time equality of a presented key and the one that last matched, for equal lengths (the
 * length of a key is no secret: all are 43 characters): every character is compared, whatever the
 * first difference. Compared as text, the presented key needs no Buffer of its own on every call.
 */
function sameKey(presented: string, matched: string): boolean {
  if (presented.length !== matched.length) return false;
  let differ = 0;
  for (let i = 0; i < presented.length; i++) differ |= presented.charCodeAt(i) ^ matched.charCodeAt(i);
  return differ === 0;
}

/** Constant-time equality for equal lengths (the length of a key is no secret: all are 43 characters). */
const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && crypto.timingSafeEqual(a, b);

function limited(e: unknown): Error {
  if (e instanceof LimitExceeded) return errors.rateLimited(Math.max(1, Math.ceil(e.msLeft / 1000)));
  return e instanceof Error ? e : new Error(String(e));
}
