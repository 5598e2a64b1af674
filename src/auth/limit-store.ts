import cluster from 'node:cluster';
import { Redis } from 'ioredis';
import type { Logger } from '../log';
import { PrimaryCounts } from './host-counts';
import { LeasedCounter, type Counter } from './leases';
import { RedisCounts } from './redis-counts';
import { WindowCounts, type SharedCounts } from './window-counts';

export { holdHostCounts } from './host-counts';

/** The limits count in fixed one-minute windows. */
export const WINDOW_SECONDS = 60;
/** Redis commands in a row without an answer in time that make a process count on its host. */
const MISSES_TO_SWITCH = 3;
/** How often a process counting on its host asks Redis whether it is back. */
const REDIS_PROBE_MS = 1_000;
/** ioredis drops a command after this (a frozen Redis keeps the connection open: nothing else would). */
const REDIS_COMMAND_DROP_MS = 2_000;

interface RedisSettings {
  url: string;
  /** Longest wait for Redis on a request (SVAPI_REDIS_TIMEOUT_MS). */
  timeoutMs: number;
}

/**
 * Where the limits count (README: Deployment and scaling):
 * - one process (`--workers 1`, apps in tests): in its memory, each request at once;
 * - a cluster worker: in the primary (messages over the cluster's IPC channel), so all the
 *   workers of a host share the counts;
 * - with SVAPI_REDIS_URL: in Redis, shared by every instance. A take that Redis does not answer
 *   within the time-out is answered by the host instead, for that one request. After
 *   MISSES_TO_SWITCH such takes in a row, or with the connection lost, the process counts on the
 *   host without asking Redis, logs it and shows it (`sharedUp`: /metrics, /readyz) until Redis
 *   answers a PING in time, and logs the return.
 * Where counts are shared, a process takes points in leases (LeasedCounter): a request does not
 * wait for the primary or Redis to count it, except near the limit.
 */
export class LimitStore {
  private constructor(private readonly redis: RedisLink | undefined) {}

  static open(redis: RedisSettings | undefined, logger: Logger): LimitStore {
    return new LimitStore(redis ? new RedisLink(redis, logger) : undefined);
  }

  /** Counts held in this process only. */
  static local(): LimitStore {
    return new LimitStore(undefined);
  }

  /** Other processes see these counts: one process's memory cannot tell whether a key is over its limit. */
  get shared(): boolean {
    return this.redis !== undefined || cluster.isWorker;
  }

  /** Undefined without Redis; otherwise whether the counts are in Redis right now. */
  get sharedUp(): boolean | undefined {
    return this.redis?.up;
  }

  /** A line for /readyz; undefined without Redis. */
  describe(): string | undefined {
    return this.redis?.describe();
  }

  /** `points` a key may use per window; `exact`: every point counted in the shared count (no leases). */
  counter(name: string, points: number, exact = false): Counter {
    const windowMs = WINDOW_SECONDS * 1000;
    const host: SharedCounts = cluster.isWorker ? new PrimaryCounts(name, windowMs) : new WindowCounts(windowMs);
    const redis = this.redis;
    if (!redis) return new LeasedCounter(host, points, windowMs, exact);
    const shared = new RedisCounts(redis.client, name, windowMs);
    // The insurance strategy (as rate-limiter-flexible's insuranceLimiter), with each answer and miss reported, so the
    // process knows when to stop asking Redis. A take the host answers gives one point only: the
    // next request asks Redis again (and counts a miss, if Redis is still slow).
    const insured = <T>(fromRedis: () => Promise<T>, fromHost: () => Promise<T>): Promise<T> => {
      if (!redis.up) return fromHost();
      return redis.withinTimeout(fromRedis()).then(
        (answer) => {
          redis.answered();
          return answer;
        },
        (e: unknown) => {
          redis.missed(e);
          return fromHost();
        },
      );
    };
    const counts: SharedCounts = {
      take: (key, want, limit) => insured(() => shared.take(key, want, limit), () => host.take(key, redis.up ? 1 : want, limit)),
      peek: (key) => insured(() => shared.peek(key), () => host.peek(key)),
    };
    return new LeasedCounter(counts, points, windowMs, exact);
  }

  async close(): Promise<void> {
    this.redis?.close();
  }
}

/** The connection to Redis and whether the counts go there (up) or to the host. */
class RedisLink {
  readonly client: Redis;
  private readonly timeoutMs: number;
  private state: 'connecting' | 'up' | 'down' = 'connecting';
  private since = new Date();
  private reason = '';
  private misses = 0;
  private probe: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(settings: RedisSettings, private readonly logger: Logger) {
    this.timeoutMs = settings.timeoutMs;
    this.client = new Redis(settings.url, {
      commandTimeout: Math.max(REDIS_COMMAND_DROP_MS, settings.timeoutMs),
      // Nothing waits for a connection: without one, commands fail at once and the host counts.
      enableOfflineQueue: false,
      // A command cut off by a lost connection is not sent again (it may have been counted).
      maxRetriesPerRequest: 0,
      connectTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.client.on('error', (e: Error) => { this.reason = e.message; });
    this.client.on('ready', () => this.check());
    this.client.on('close', () => this.switchToHost(this.reason || 'connection closed'));
  }

  get up(): boolean {
    return this.state === 'up';
  }

  describe(): string {
    if (this.state === 'up') return `limits: shared in Redis since ${this.since.toISOString()}`;
    if (this.state === 'connecting') return 'limits: counted on this host (connecting to Redis)';
    // The reason (addresses, errors) goes to the log only: /readyz answers anyone.
    return `limits: counted on this host since ${this.since.toISOString()} (Redis unavailable)`;
  }

  answered(): void {
    this.misses = 0;
  }

  missed(e: unknown): void {
    if (++this.misses >= MISSES_TO_SWITCH) this.switchToHost(e);
  }

  close(): void {
    this.closing = true;
    clearInterval(this.probe);
    this.client.disconnect();
  }

  /**
   * Rejects when `answer` has not settled within the time-out. The time-out is decided after the
   * event loop has read what arrived meanwhile (setImmediate runs after the poll phase): a process
   * that was busy or not scheduled for that long does not take an answer waiting in its socket
   * for a slow Redis.
   */
  withinTimeout<T>(answer: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new Error(`no answer within ${this.timeoutMs} ms`));
      }), this.timeoutMs);
      answer.then(
        (v) => { if (!settled) { settled = true; clearTimeout(timer); resolve(v); } },
        (e: unknown) => { if (!settled) { settled = true; clearTimeout(timer); reject(e); } },
      );
    });
  }

  private switchToHost(e: unknown): void {
    if (this.closing) return;
    if (typeof e === 'string') this.reason = e;
    else if (e instanceof Error) this.reason = e.message;
    if (this.state === 'down') return;
    this.state = 'down';
    this.since = new Date();
    this.logger.warn({ reason: this.reason, timeoutMs: this.timeoutMs }, 'Redis unavailable: limits are counted on this host until it answers');
    this.probe ??= setInterval(() => this.check(), REDIS_PROBE_MS).unref();
  }

  private check(): void {
    // Not connected: the 'ready' event checks once it is.
    if (this.client.status !== 'ready') return;
    this.withinTimeout(this.client.ping()).then(() => this.recovered(), (e: unknown) => this.switchToHost(e));
  }

  private recovered(): void {
    if (this.closing || this.state === 'up') return;
    const was = this.state;
    this.state = 'up';
    this.since = new Date();
    this.reason = '';
    this.misses = 0;
    clearInterval(this.probe);
    this.probe = undefined;
    this.logger.info(was === 'down' ? 'Redis answers again: limits are shared again' : 'limits are shared in Redis');
  }
}
