import { performance } from 'node:perf_hooks';
import { OVERLOAD_RETRY_AFTER_S } from './overload-report';

/** How long after a refusal a call on the same connection waits before it is taken up. */
export const RETRY_AFTER_MS = OVERLOAD_RETRY_AFTER_S * 1000;

/**
 * Calls that come on a connection before the Retry-After of its last overload refusal has passed
 * wait here until it has, then go through admission like any call. A client that honours
 * Retry-After never waits here; one that retries at once (a load generator's closed loop, a naive
 * retry loop) is slowed to one refusal per Retry-After per connection instead of one per turn
 * of the event loop, and the refusals no longer take the CPU that the answers need. The request is
 * not read meanwhile (its body waits in the connection), so nothing else on that connection is.
 */
export class EarlyRetries {
  private readonly refusedAt = new WeakMap<object, number>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A call on `connection` was refused for overload. */
  refused(connection: object): void {
    this.refusedAt.set(connection, this.now());
  }

  /** Resolves when a call on `connection` may be taken up; undefined when it may at once. */
  wait(connection: object): Promise<void> | undefined {
    const at = this.refusedAt.get(connection);
    if (at === undefined) return undefined;
    const left = at + RETRY_AFTER_MS - this.now();
    if (left <= 0) {
      this.refusedAt.delete(connection);
      return undefined;
    }
    return new Promise((resolve) => setTimeout(resolve, left));
  }
}
