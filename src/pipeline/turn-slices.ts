import { performance } from 'node:perf_hooks';

/** The slice of a turn that rendering answers may take before the loop polls again (ms). */
export const RENDER_SLICE_MS = 20;

/** The slice of a turn that taking up operation calls (admission on) may take before the loop polls again (ms). */
export const CALL_SLICE_MS = 20;

/**
 * CPU work (rendering an answer, taking up an operation call) done a slice of the event loop's
 * turn at a time, in order: a job runs at once while the current turn has spent less than
 * `budgetMs` since its first job, else waits for a later turn's slice (setImmediate), so that
 * between slices the loop polls again: accepts new connections, reads requests, answers /healthz.
 * Without it, a turn runs every answer whose query ended meanwhile (up to a pool's worth of
 * 1,000-record answers), or every call read or due in it (hundreds, when a thousand clients
 * connect at once, or retry together a second after their refusals), and a caller on a new
 * connection waits for two or three such turns. As React's scheduler yields to the browser every
 * 5 ms, but with a budget: a job runs whole, however long it takes.
 */
export class TurnSlices {
  private readonly jobs: Array<(waitedMs: number) => void> = [];
  /** When each job of `jobs` was put off to a later slice. */
  private readonly since: number[] = [];
  private head = 0;
  /** When the current turn's first job ran; -1: none yet in this turn. */
  private sliceStart = -1;
  private scheduled = false;

  /** `beforeSlice`: run before each later turn's slice that has jobs (the service ends the turn's answers: http/turn-writes.ts). */
  constructor(private readonly budgetMs: number, private readonly now = () => performance.now(), private readonly beforeSlice?: () => void) {}

  /** Jobs waiting for a later slice. */
  get waiting(): number {
    return this.jobs.length - this.head;
  }

  /** `work`'s result, computed in this turn if its budget allows, else in a later one. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const job = () => {
        try {
          resolve(work());
        } catch (e) {
          reject(e);
        }
      };
      this.post(job);
    });
  }

  /** `job` run in this turn if its budget allows (given 0), else in a later turn's slice (given how long it waited, ms). */
  post(job: (waitedMs: number) => void): void {
    if (this.waiting === 0 && this.inBudget()) job(0);
    else {
      this.jobs.push(job);
      this.since.push(this.now());
    }
    this.schedule();
  }

  private inBudget(): boolean {
    const now = this.now();
    if (this.sliceStart < 0) this.sliceStart = now;
    return now - this.sliceStart < this.budgetMs;
  }

  /** The slice ends in this turn's check phase: the next one starts there, or in a later turn. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.nextSlice);
  }

  private readonly nextSlice = (): void => {
    this.scheduled = false;
    this.sliceStart = -1;
    if (this.waiting > 0) this.beforeSlice?.();
    while (this.waiting > 0 && this.inBudget()) {
      const i = this.head++;
      this.jobs[i](this.now() - this.since[i]);
    }
    if (this.head === this.jobs.length) {
      this.jobs.length = 0;
      this.since.length = 0;
      this.head = 0;
    }
    // Jobs ran here (always, when some waited): this slice lasts until the next turn's check
    // phase; the jobs that come in between wait for it if it is spent.
    if (this.sliceStart >= 0) this.schedule();
  };
}
