import { performance } from 'node:perf_hooks';

/** Idle time (ms) the loop may have had between two turns' first requests and still count as not having slept. */
export const SLEPT_MS = 1;

/** The event loop's idle time so far (ms): the time it has slept waiting for I/O. */
const loopIdleMs = () => performance.eventLoopUtilization().idle;

/**
 * When a request may have arrived: the earliest time consistent with the event loop's turns.
 * A request is read in the turn after its bytes came. While a turn runs (under overload it reads
 * hundreds of requests, decodes rows, renders answers: hundreds of milliseconds), what arrives
 * waits in its socket, and no clock of the service's sees that wait. When the loop has not slept
 * since the previous turn with requests began, a request read now may have come just after that
 * turn began reading: it counts from then. When it slept (waiting for I/O), the turn was woken by
 * what it reads: its requests count from the turn's first.
 *
 * A call's time counts from here for its deadlines (DbQueue), so a call that sat in its socket
 * behind a long turn is not also kept for the whole deadline after it; the access log's duration
 * stays the service's own time.
 */
export class Arrivals {
  /** Whether a request of the current turn has been seen (the end-of-turn mark is due). */
  private inTurn = false;
  /** The current turn's first request: when it was read, and the loop's idle time then. */
  private turnStart = -Infinity;
  private turnIdle = -Infinity;
  /** The earliest arrival of the current turn's requests. */
  private floor = -Infinity;
  private readonly endTurn = () => {
    this.inTurn = false;
  };

  constructor(private readonly idleMs: () => number = loopIdleMs) {}

  /** The earliest time a request read at `now` (performance.now()) may have arrived. */
  arrival(now: number): number {
    if (!this.inTurn) {
      this.inTurn = true;
      const idle = this.idleMs();
      this.floor = idle - this.turnIdle < SLEPT_MS ? this.turnStart : now;
      this.turnStart = now;
      this.turnIdle = idle;
      setImmediate(this.endTurn);
    }
    return Math.min(this.floor, now);
  }
}
