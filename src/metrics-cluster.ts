import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const ASK = 'svapi:instance-metrics';
const ANSWER = 'svapi:instance-metrics-answer';
/** prom-client gives each worker 5 s to send its metrics; this leaves room for the sum. */
const SCRAPE_TIMEOUT_MS = 6_000;

interface Answer { type: typeof ANSWER; id: number; text?: string; error?: string }

// A worker answers the primary's collection from the start (with nothing until its app has a
// registry): the primary waits for every connected worker, and one still starting would
// otherwise hold every scrape for prom-client's 5 s and fail it.
if (cluster.isWorker) new AggregatorRegistry();

/**
 * In the cluster primary, before forking: a worker asked for the instance's metrics gets the
 * sum over all workers (prom-client's AggregatorRegistry; counters and histograms add up, each
 * metric's `aggregator` says otherwise).
 */
export function aggregateWorkerMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, msg: { type?: string; id?: number }) => {
    if (msg?.type !== ASK) return;
    const answer = (a: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: msg.id, ...a });
    };
    aggregator.clusterMetrics().then((text) => answer({ text }), (e: unknown) => answer({ error: e instanceof Error ? e.message : String(e) }));
  });
}

/**
 * In a cluster worker: offers `registry` to the primary's aggregation and returns the scrape
 * of the whole instance (asked of the primary).
 */
export function instanceScrape(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  let next = 0;
  const waiting = new Map<number, (a: Answer) => void>();
  process.on('message', (msg: Answer) => {
    if (msg?.type === ANSWER) waiting.get(msg.id)?.(msg);
  });
  return () => new Promise<string>((resolve, reject) => {
    const id = next++;
    const timer = setTimeout(() => settle({ type: ANSWER, id, error: 'the cluster primary did not answer in time' }), SCRAPE_TIMEOUT_MS);
    function settle(a: Answer) {
      clearTimeout(timer);
      waiting.delete(id);
      if (a.text !== undefined) resolve(a.text);
      else reject(new Error(`instance metrics: ${a.error}`));
    }
    waiting.set(id, settle);
    process.send!({ type: ASK, id });
  });
}
