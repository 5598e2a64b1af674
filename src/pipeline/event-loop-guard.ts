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
 * records how late it fires), read every EVENT_LOOP_SAMPLE_MS; the loop is overloaded while the
 * mean delay over the last reading exceeds `maxDelayMs` and the loop was busy (its utilization,
 * performance.eventLoopUtilization) at least BUSY_SHARE of that time. A busy loop that keeps up
 * (every request answered in the turn it arrives) has a small mean delay, however many requests
 * it serves; a loop that cannot keep up makes every timer, and so every caller, wait a whole turn.
 * A process that is late only because others hold the cores, while it mostly waits for I/O, is
 * not overloaded by its own calls: refusing them would not make it faster.
 */
export class EventLoopGuard {
  /** The mean delay of the last reading, in milliseconds. */
  delayMs = 0;
  private overloadedNow = false;
  private readonly histogram: IntervalHistogram;
  private readonly timer: NodeJS.Timeout;
  private utilization: EventLoopUtilization = performance.eventLoopUtilization();

  constructor(readonly maxDelayMs: number) {
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.histogram.enable();
    this.timer = setInterval(() => this.read(), EVENT_LOOP_SAMPLE_MS);
    this.timer.unref();
  }

  get overloaded(): boolean {
    return this.overloadedNow;
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }

  private read(): void {
    const h = this.histogram;
    // The histogram counts the timer's whole period; what exceeds it is the delay.
    this.delayMs = h.count > 0 ? Math.max(0, h.mean / 1e6 - RESOLUTION_MS) : 0;
    h.reset();
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, this.utilization).utilization;
    this.utilization = now;
    this.overloadedNow = this.delayMs > this.maxDelayMs && busy >= BUSY_SHARE;
  }
}
