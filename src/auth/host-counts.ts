import cluster from 'node:cluster';
import { WindowCounts, type SharedCounts, type Taken } from './window-counts';

/** How long a worker waits for the primary (which answers in well under a millisecond; this is for a primary gone). */
const PRIMARY_TIMEOUT_MS = 2_000;
/** The property that marks the limit messages among the others between primary and workers. */
const TAG = 'svapiLimits';

interface Ask { id: number; name: string; key: string; want: number; limit: number; windowMs: number }
interface Answer { id: number; taken: Taken }

/** In the cluster primary, before forking: holds the counts of the host's workers and answers them. */
export function holdHostCounts(): void {
  const counts = new Map<string, WindowCounts>();
  cluster.on('message', (worker, message: Record<string, unknown>) => {
    const ask = message?.[TAG] as Ask | undefined;
    if (!ask || typeof ask.id !== 'number') return;
    let c = counts.get(ask.name);
    if (!c) counts.set(ask.name, (c = new WindowCounts(ask.windowMs)));
    const taken = ask.want > 0 ? c.takeNow(ask.key, ask.want, ask.limit) : { granted: 0, ...c.peekNow(ask.key) };
    if (worker.isConnected()) worker.send({ [TAG]: { id: ask.id, taken } satisfies Answer });
  });
}

let nextId = 1;
const waiting = new Map<number, { resolve: (t: Taken) => void; timer: NodeJS.Timeout }>();
let listening = false;

/**
 * In a cluster worker: one limit's counts, kept by the primary (one message there and back per
 * take). Without an answer in time (the primary gone), a take is answered from this process's
 * own counts, so a request is never refused for it.
 */
export class PrimaryCounts implements SharedCounts {
  private readonly own: WindowCounts;

  constructor(private readonly name: string, private readonly windowMs: number) {
    this.own = new WindowCounts(windowMs);
    if (!listening) {
      listening = true;
      process.on('message', (message: Record<string, unknown>) => {
        const answer = message?.[TAG] as Answer | undefined;
        const w = answer && waiting.get(answer.id);
        if (!w) return;
        waiting.delete(answer!.id);
        clearTimeout(w.timer);
        w.resolve(answer!.taken);
      });
    }
  }

  take(key: string, want: number, limit: number): Promise<Taken> {
    return this.ask(key, want, limit, () => this.own.takeNow(key, want, limit));
  }

  peek(key: string): Promise<Pick<Taken, 'used' | 'msLeft'>> {
    return this.ask(key, 0, 0, () => ({ granted: 0, ...this.own.peekNow(key) }));
  }

  private ask(key: string, want: number, limit: number, fallback: () => Taken): Promise<Taken> {
    return new Promise((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve(fallback());
      }, PRIMARY_TIMEOUT_MS);
      timer.unref();
      waiting.set(id, { resolve, timer });
      const failed = () => {
        if (!waiting.delete(id)) return;
        clearTimeout(timer);
        resolve(fallback());
      };
      try {
        // With a callback, a channel closed under the send is told here, not thrown at the process.
        process.send!({ [TAG]: { id, name: this.name, key, want, limit, windowMs: this.windowMs } satisfies Ask }, undefined, undefined, (e: Error | null) => {
          if (e) failed();
        });
      } catch {
        failed();
      }
    });
  }
}
