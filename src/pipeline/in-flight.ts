import type { Logger } from '../log';
import type { Res } from '../http/exchange';

/** How long a refused caller is told to wait (Retry-After, seconds). */
export const OVERLOAD_RETRY_AFTER_S = 1;
/** How often an overload in progress is logged (once when it starts, then at most this often). */
const OVERLOAD_LOG_MS = 10_000;

/**
 * Bounds the operation calls this process works on at once (SVAPI_MAX_IN_FLIGHT). A call beyond
 * the bound is refused at once, before its body is read or parsed, with ServiceUnavailable and
 * Retry-After: under overload some callers get a quick answer instead of every caller a late one
 * (requests beyond the database pool only queue, and their wait grows with the queue). A call
 * counts from its handler's start until the handler has written its answer (or the connection
 * closed first): the work, not the sending of the bytes, so answers from the cache hardly count
 * even when many arrive together. Pages, WSDLs, /healthz, /readyz and /metrics do not pass here.
 */
export class InFlightLimit {
  inFlight = 0;
  /** Calls refused since the start. */
  refused = 0;
  private overload: { timer: NodeJS.Timeout; since: number; refused: number; reported: number } | undefined;

  constructor(readonly max: number, private readonly logger: Logger) {}

  /**
   * Counts a call in, or (beyond the bound) counts a refusal and gives undefined: the caller then
   * answers ServiceUnavailable. The function returned counts the call out (once; also when the
   * connection closes first).
   */
  admit(res: Res): (() => void) | undefined {
    if (this.inFlight >= this.max) {
      this.refused++;
      this.noteOverload();
      return undefined;
    }
    this.inFlight++;
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      this.inFlight--;
    };
    // A response emits 'close' once; after a release the listener does nothing (cheaper than removing it).
    res.on('close', release);
    return release;
  }

  /** Stops the overload report timer. */
  stop(): void {
    if (this.overload) clearInterval(this.overload.timer);
    this.overload = undefined;
  }

  /**
   * Logged once when refusals start, then at most every OVERLOAD_LOG_MS while they go on, and once
   * when a period passes without one: never a line per refused call at warn.
   */
  private noteOverload(): void {
    if (this.overload) {
      this.overload.refused++;
      return;
    }
    this.logger.warn({ maxInFlight: this.max }, 'overloaded: refusing operation calls beyond SVAPI_MAX_IN_FLIGHT');
    const overload = { since: Date.now(), refused: 1, reported: 0, timer: setInterval(() => {
      const recent = overload.refused - overload.reported;
      overload.reported = overload.refused;
      if (recent > 0) {
        this.logger.warn({ maxInFlight: this.max, refused: recent }, 'still overloaded');
        return;
      }
      this.logger.info({ refused: overload.refused, seconds: Math.round((Date.now() - overload.since) / 1000) }, 'no longer overloaded');
      this.stop();
    }, OVERLOAD_LOG_MS) };
    overload.timer.unref();
    this.overload = overload;
  }
}
