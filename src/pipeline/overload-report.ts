import type { Logger } from '../log';

/** How long a refused caller is told to wait (Retry-After, seconds). */
export const OVERLOAD_RETRY_AFTER_S = 1;
/** How often an overload in progress is logged (once when it starts, then at most this often). */
const OVERLOAD_LOG_MS = 10_000;

/** Why a call was refused: the event loop is late, waiting for a database connection would make it late, or the hard ceiling. */
export type RefusalReason = 'event-loop' | 'database-wait' | 'ceiling';
export const REFUSAL_REASONS: readonly RefusalReason[] = ['event-loop', 'database-wait', 'ceiling'];

/**
 * Counts the calls refused for overload (by reason, for /metrics) and logs them as an overload:
 * one warn line when refusals start, then at most one every OVERLOAD_LOG_MS while they go on, and
 * an info line once a period passes without one. Never a line per refused call at warn.
 */
export class OverloadReport {
  readonly refused: Record<RefusalReason, number> = { 'event-loop': 0, 'database-wait': 0, ceiling: 0 };
  private overload: { timer: NodeJS.Timeout; since: number; total: number; reported: number; reasons: Set<RefusalReason> } | undefined;

  constructor(private readonly logger: Logger, private readonly detail: () => Record<string, unknown>) {}

  note(reason: RefusalReason): void {
    this.refused[reason]++;
    const current = this.overload;
    if (current) {
      current.total++;
      current.reasons.add(reason);
      return;
    }
    this.logger.warn({ reason, ...this.detail() }, 'overloaded: refusing operation calls with ServiceUnavailable');
    const overload = { since: Date.now(), total: 1, reported: 0, reasons: new Set<RefusalReason>(), timer: setInterval(() => {
      const recent = overload.total - overload.reported;
      overload.reported = overload.total;
      if (recent > 0) {
        this.logger.warn({ refused: recent, reasons: [...overload.reasons], ...this.detail() }, 'still overloaded');
        overload.reasons.clear();
        return;
      }
      this.logger.info({ refused: overload.total, seconds: Math.round((Date.now() - overload.since) / 1000) }, 'no longer overloaded');
      this.stop();
    }, OVERLOAD_LOG_MS) };
    overload.timer.unref();
    this.overload = overload;
  }

  stop(): void {
    if (this.overload) clearInterval(this.overload.timer);
    this.overload = undefined;
  }
}
