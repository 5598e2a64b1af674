import { performance } from 'node:perf_hooks';

/** CoDel's interval, and the longest wait, in targets. */
export const INTERVAL_TARGETS = 5;

/** Weight of the latest call in the average time a slot is held. */
const HOLD_WEIGHT = 0.1;

/** Thrown (through the promise) to a call that waited, or would wait, too long for a database connection. */
export class DatabaseWaitTooLong extends Error {}

/**
 * The one refusal, given to every call refused: under overload thousands a second are, and
 * making each its own Error (with its stack) took 2% of a worker's time.
 */
const WAIT_TOO_LONG = new DatabaseWaitTooLong('no database connection in time');

/** The time a call that arrived at `arrived` (none: now) has spent by `now`. */
function spentSince(arrived: number | undefined, now: number): number {
  return arrived === undefined ? 0 : Math.max(0, now - arrived);
}

/** Thrown (through the promise) to a call whose client closed its connection before it got one: nothing is answered. */
export class CallerGone extends Error {}

/** A call's connection as the queue watches it (an http.ServerResponse): closed, and when it closes. */
export interface CallerConnection {
  readonly destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
}

export interface DbQueueSettings {
  /** Connections the calls share (SVAPI_DB_POOL_MAX): more calls than this wait here. */
  slots: number;
  /** The target (SVAPI_QUEUE_TARGET_MS): a wait above it for a whole interval is a standing queue; 5 x it is the longest wait. */
  targetMs: number;
}

interface Waiter {
  /** Granted, refused or gone: still in the array until the head passes it. */
  settled: boolean;
  since: number;
  /** When the call arrived (its request's start): no call is kept beyond its deadline (one interval) from then. */
  arrived: number;
  grant: (release: () => void) => void;
  refuse: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * The operation calls of a process waiting for one of its database connections, refused only when
 * waiting would make them late:
 * - a call gets a slot at once while one is free, else waits in order of arrival;
 * - no call waits more than 5 x target from its arrival (its deadline): it is refused then, or at
 *   once when the waiters ahead of it, at the recent time a call holds a slot, would make it wait
 *   longer than that;
 * - a call's wait counts from its arrival (its request's start), so the time it spent before the
 *   queue (reading and checking the request, slower under overload; held as an early retry) counts too;
 * - each wait is measured, and the queue stands for the next interval (5 x target) when the
 *   shortest wait of the last stayed above the target (CoDel's test, Nichols and Jacobson: no call
 *   got through quickly, so the queue is not absorbing a burst). While it stands, a call whose
 *   query ends past its deadline is not answered (lateForAnswer): rendering and sending an answer
 *   its caller has given up on would take the CPU from calls still in time;
 * - a call whose client closes its connection while it waits leaves the queue (CallerGone).
 * A call that finds a slot free gets it at once, however late it is. A burst whose waits stay
 * within the deadline is served whole, however long the queue grew. CoDel's own remedy, refusing
 * every call that has waited twice the target while the queue stands, is not applied: a closed
 * loop of callers (64 connections, each sending its next call when answered) keeps a queue
 * standing at any speed, and on a machine slowed by other work it was refused below capacity
 * (docs/performance.md, "twenty-fourth pass").
 */
export class DbQueue {
  /** Calls refused for their wait since the start. */
  refused = 0;
  /** Calls that found no slot free and waited (or were refused at their deadline) since the start. */
  queued = 0;
  private inUse = 0;
  private readonly queue: Waiter[] = [];
  private head = 0;
  /** Waiters in `queue` past `head` that are settled (refused at their deadline, or gone). */
  private settledInQueue = 0;
  /**
   * CoDel's interval: the waits of one decide whether the queue stands in the next. It is also a
   * call's deadline from its arrival, so a call refused at it has waited through a whole interval.
   */
  private readonly intervalMs: number;
  private intervalEnds: number;
  private shortest = Infinity;
  private overloadedNow = false;
  /** How long a call holds a slot, on average of the recent ones (ms). */
  private holdMs = 0;

  constructor(private readonly settings: DbQueueSettings, private readonly onRefuse: () => void = () => {}, private readonly now = () => performance.now()) {
    this.intervalMs = INTERVAL_TARGETS * settings.targetMs;
    this.intervalEnds = now() + this.intervalMs;
  }

  /** Calls waiting for a slot now. */
  get waiting(): number {
    return this.queue.length - this.head - this.settledInQueue;
  }

  get overloaded(): boolean {
    this.roll(this.now());
    return this.overloadedNow;
  }

  /**
   * A slot: the promise gives the function that releases it (once), at once when one is free;
   * it rejects with DatabaseWaitTooLong when waiting would make the call late, and with
   * CallerGone when `caller` has closed (before or while it waits). `arrived`: when the call's
   * request started (this clock; default now).
   */
  enter(arrived?: number, caller?: CallerConnection): Promise<() => void> {
    if (caller?.destroyed) return Promise.reject(new CallerGone('the caller closed its connection'));
    const now = this.now();
    this.roll(now);
    if (this.slotFreeNow) {
      this.granted(0);
      return Promise.resolve(this.releaser());
    }
    // A call's time counts from its arrival: the time before the queue (reading the request, its
    // credentials, slower under overload; an early retry's wait, EarlyRetries) is not waited again.
    const before = spentSince(arrived, now);
    // Waiting would make it late: refused now rather than after the wait.
    if (this.lateIfWaiting(before)) return Promise.reject(this.refusal());
    this.queued++;
    return new Promise((grant, refuse) => {
      const waiter: Waiter = { settled: false, since: now, arrived: now - before, grant, refuse, timer: undefined as unknown as NodeJS.Timeout };
      waiter.timer = setTimeout(() => this.expire(waiter), this.intervalMs - before);
      this.queue.push(waiter);
      // Once granted (or refused) the listener does nothing: cheaper than removing it.
      caller?.once('close', () => this.leave(waiter));
    });
  }

  /**
   * Whether a call that arrived at `arrived` (as for `enter`; none: now) would be refused at once
   * by `enter` (no slot free, and the waiters ahead of it would make it late, its time since
   * arrival counted): a call that is sure to need a connection can be refused on this before its
   * request is read (not counted here: `refusal` counts). An early retry, held a second, mostly is.
   */
  wouldRefuse(arrived?: number): boolean {
    const now = this.now();
    this.roll(now);
    return !this.slotFreeNow && this.lateIfWaiting(spentSince(arrived, now));
  }

  /** Whether a call entering now gets a slot at once: one is free and nobody waits for it. */
  private get slotFreeNow(): boolean {
    return this.inUse < this.settings.slots && this.waiting === 0;
  }

  /** Whether the waiters ahead, at the recent time a call holds a slot, would keep a call that already spent `before` ms past its deadline. */
  private lateIfWaiting(before: number): boolean {
    return before + ((this.waiting + 1) / this.settings.slots) * this.holdMs > this.intervalMs;
  }

  /**
   * Whether a call that got its slot and ran its query is too late to be answered: while the
   * queue stands, its request started more than the longest wait (5 x target) ago. `arrived` on
   * the clock of `enter`.
   */
  lateForAnswer(arrived: number | undefined): boolean {
    if (arrived === undefined) return false;
    const now = this.now();
    this.roll(now);
    return this.overloadedNow && now - arrived > this.intervalMs;
  }

  /** A refusal for waiting too long, counted (to throw or reject with). */
  refusal(): DatabaseWaitTooLong {
    this.refused++;
    this.onRefuse();
    return WAIT_TOO_LONG;
  }

  private oldestWaiter(): Waiter {
    let i = this.head;
    while (this.queue[i].settled) i++;
    return this.queue[i];
  }

  private releaser(): () => void {
    let held = true;
    const since = this.now();
    return () => {
      if (!held) return;
      held = false;
      this.holdMs += (this.now() - since - this.holdMs) * HOLD_WEIGHT;
      this.inUse--;
      this.next();
    };
  }

  /** Hands free slots to the oldest waiters; refuses those past their deadline (their timer late behind a busy turn). */
  private next(): void {
    while (this.inUse < this.settings.slots && this.waiting > 0) {
      const w = this.shift();
      const now = this.now();
      const waited = now - w.since;
      this.roll(now);
      if (now - w.arrived > this.intervalMs) {
        this.settle(w).refuse(this.refusal());
        continue;
      }
      this.granted(waited);
      this.settle(w).grant(this.releaser());
    }
  }

  /** The oldest waiter still waiting, out of the queue (there is one: waiting > 0). */
  private shift(): Waiter {
    for (;;) {
      const w = this.queue[this.head];
      this.queue[this.head++] = undefined as unknown as Waiter;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      if (!w.settled) return w;
      this.settledInQueue--;
    }
  }

  /** The waiter, no longer waiting (its timer stopped); one still in the array is skipped later. */
  private settle(w: Waiter): Waiter {
    w.settled = true;
    clearTimeout(w.timer);
    return w;
  }

  private granted(waitedMs: number): void {
    this.inUse++;
    if (waitedMs < this.shortest) this.shortest = waitedMs;
  }

  private expire(w: Waiter): void {
    this.drop(w, () => {
      this.roll(this.now());
      return this.refusal();
    });
  }

  /** Its client closed the connection: the call leaves the queue, neither served nor refused. */
  private leave(w: Waiter): void {
    this.drop(w, () => new CallerGone('the caller closed its connection'));
  }

  /** A waiter still in the queue, settled where it stands with the error made by `error`. */
  private drop(w: Waiter, error: () => Error): void {
    if (w.settled) return;
    this.settle(w);
    this.settledInQueue++;
    w.refuse(error());
  }

  /**
   * At the end of an interval: overloaded for the next when no call got a slot within the target
   * in it. An interval in which no call got one counts by the oldest waiter's wait so far (none
   * waiting: not overloaded).
   */
  private roll(now: number): void {
    if (now < this.intervalEnds) return;
    const oldest = this.waiting > 0 ? now - this.oldestWaiter().since : 0;
    // An interval or more without a roll: the waits measured before say nothing of the last interval.
    const stale = now >= this.intervalEnds + this.intervalMs;
    const shortest = this.shortest === Infinity || stale ? oldest : this.shortest;
    this.overloadedNow = shortest > this.settings.targetMs;
    this.shortest = Infinity;
    this.intervalEnds = now + this.intervalMs;
  }
}
