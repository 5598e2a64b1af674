import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';

/** How often the event loop's delay is read (and the reading starts over). */
export const EVENT_LOOP_SAMPLE_MS = 250;
/** The histogram's timer period: a delay is how late this timer fires. */
const RESOLUTION_MS = 10;
/** Share of a reading the loop must have been busy (not waiting for I/O) to count as overloaded. */
const BUSY_SHARE = 0.9;

/**
 * Whether this process's event loop is overloaded, as @fastify/under-pressure decides it: Node's
 * own event-loop delay histogram (perf_hooks.monitorEventLoopDelay, a timer every 10 ms that
 * records how late it fires), read every EVENT_LOOP_SAMPLE_MS by a timer whose own lateness counts
 * as well (as overload-protection measures it), and the longest a call waited for its slice of a
 * turn (waited); the loop is overloaded while the longest delay of the last reading exceeds
 * `maxDelayMs` and the loop was busy (its utilization, performance.eventLoopUtilization) at least
 * BUSY_SHARE of that time, in two readings in a row.
 * The longest delay, not the mean: a caller (a /healthz probe, a new connection) that arrives
 * during a long turn waits for all of it, and a few long turns among many short ones (a batch of
 * large answers rendered in one turn) hardly move the mean. A busy loop that keeps up (every
 * request answered in the turn it arrives) has short turns, however many requests it serves; a
 * loop that cannot keep up makes every timer, and so every caller, wait a whole turn. A process
 * that is late only because others hold the cores, while it mostly waits for I/O, is not
 * overloaded by its own calls: refusing them would not make it faster.
 */
export class EventLoopGuard {
  /** The longest delay of the last reading, in milliseconds. */
  delayMs = 0;
  private overloadedNow = false;
  private lateBefore = false;
  private readonly histogram: IntervalHistogram;
  private timer: NodeJS.Timeout;
  private readingDue: number;
  private utilization: EventLoopUtilization = performance.eventLoopUtilization();
  /** The longest wait for a slice of a turn (waited) since the last reading. */
  private longestWait = 0;

  constructor(readonly maxDelayMs: number) {
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.histogram.enable();
    this.readingDue = performance.now() + EVENT_LOOP_SAMPLE_MS;
    this.timer = this.schedule();
  }

  private schedule(): NodeJS.Timeout {
    return setTimeout(() => {
      this.read();
      this.timer = this.schedule();
    }, EVENT_LOOP_SAMPLE_MS).unref();
  }

  get overloaded(): boolean {
    return this.overloadedNow;
  }

  /**
   * A call waited `ms` for its slice of a turn (TurnSlices): a wait for the event loop that no
   * timer sees (the turns stay short while the calls put off wait). The next reading counts the
   * longest as a delay.
   */
  waited(ms: number): void {
    if (ms > this.longestWait) this.longestWait = ms;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.histogram.disable();
  }

  private read(): void {
    const h = this.histogram;
    // The histogram counts the timer's whole period; what exceeds it is the delay. A loop blocked
    // for longer than a reading may leave it without a sample: how late this reading came counts too.
    const at = performance.now();
    const lateBy = at - this.readingDue;
    this.readingDue = at + EVENT_LOOP_SAMPLE_MS;
    this.delayMs = Math.max(lateBy, h.count > 0 ? h.max / 1e6 - RESOLUTION_MS : 0, this.longestWait, 0);
    h.reset();
    this.longestWait = 0;
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, this.utilization).utilization;
    this.utilization = now;
    // Two readings in a row: one long task (a start-up, a large answer) is no overload.
    const late = this.delayMs > this.maxDelayMs && busy >= BUSY_SHARE;
    this.overloadedNow = late && this.lateBefore;
    this.lateBefore = late;
  }
}
