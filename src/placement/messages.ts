import { performance } from 'node:perf_hooks';

/** The property that marks placement's messages among the others between primary and workers. */
export const PLACEMENT_TAG = 'svapiPlacement';

/** How often each worker reports its load, and the primary reads the machine's. */
export const REPORT_MS = 500;

/** Between the primary and a worker: its load (worker to primary), or what to do (primary to worker). */
export type PlacementMessage =
  | { [PLACEMENT_TAG]: 'load'; cpu: number; waited: number }
  | { [PLACEMENT_TAG]: 'accept'; accept: boolean }
  /**
   * Give up `share` of the connections; with `pause`, accept none until they have closed: only
   * when another worker surely accepts (the idle one beside a saturated one), since a port no
   * worker listens on is closed (node:cluster's primary lets go of a socket no worker holds).
   */
  | { [PLACEMENT_TAG]: 'shed'; share: number; pause: boolean };

/** A send's callback that drops its error: placement's messages are worth nothing once the other side is gone. */
export const ignoreSendError = () => {};

/** Whether a message between primary and worker is placement's. */
export const isPlacement = (m: unknown): m is PlacementMessage => typeof m === 'object' && m !== null && PLACEMENT_TAG in m;

/**
 * This process's CPU in cores (user and system) since the meter's previous reading, the first
 * since it was made: what a worker reports, and what the primary counts of the quota itself.
 */
export function ownCoresMeter(now: () => number = () => performance.now()): () => number {
  let cpu = process.cpuUsage();
  let at = now();
  return () => {
    const t = now();
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    const cores = (used.user + used.system) / 1000 / Math.max(t - at, 1);
    at = t;
    return cores;
  };
}
