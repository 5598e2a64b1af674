import type { Res } from '../http/exchange';
import type { DbQueue } from './db-queue';
import type { EventLoopGuard } from './event-loop-guard';
import type { OverloadReport } from './overload-report';

/**
 * Admission of an operation call, decided before its body is read or parsed. A call is refused
 * (ServiceUnavailable with Retry-After) when this process's event loop is overloaded
 * (EventLoopGuard: every caller here already waits a turn of the loop), or at the hard ceiling
 * SVAPI_MAX_IN_FLIGHT of calls being worked on at once, a bound far above what the process ever
 * holds below overload (IIS's request queue, 5,000 by default, is the same kind of bound). Calls
 * that need the database are refused only when waiting for a connection would make them late
 * (DbQueue): here, when admit is given the DbQueue because every call needs it (no answer cache),
 * else once the call's body tells that its answer is not cached. A call counts from its handler's
 * start until the handler has written its answer, or failed. Pages, WSDLs, /healthz, /readyz and
 * /metrics do not pass here.
 */
export class InFlightLimit {
  inFlight = 0;

  constructor(readonly max: number, private readonly loop: EventLoopGuard, private readonly report: OverloadReport) {}

  /**
   * Counts a call in (true), or counts a refusal (false): the caller then answers
   * ServiceUnavailable. A call counted in is counted out by `release`, once, when its handler is
   * done with it (a call whose client left is done once its wait or read fails: DbQueue, readBody).
   * `dbQueue`: given when the call is sure to need a database connection. `waitedMs`: how long the
   * call waited for a slice of a turn (TurnSlices), a wait for the event loop that the
   * EventLoopGuard counts.
   */
  admit(res: Res, dbQueue?: DbQueue, waitedMs = 0): boolean {
    if (waitedMs > 0) this.loop.waited(waitedMs);
    if (this.inFlight >= this.max) {
      this.report.note('ceiling');
      return false;
    }
    if (this.loop.overloaded) {
      this.report.note('event-loop');
      return false;
    }
    if (dbQueue?.wouldRefuse(res.locals.arrivedAt)) {
      dbQueue.refusal();
      return false;
    }
    this.inFlight++;
    return true;
  }

  /** Counts out a call that `admit` counted in. */
  release(): void {
    this.inFlight--;
  }
}
