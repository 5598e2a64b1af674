/** The property that marks placement's messages among the others between primary and workers. */
export const PLACEMENT_TAG = 'svapiPlacement';

/** How often each worker reports its load, and the primary reads the machine's. */
export const REPORT_MS = 500;

/** Between the primary and a worker: its load (worker to primary), or what to do (primary to worker). */
export type PlacementMessage =
  | { [PLACEMENT_TAG]: 'load'; cpu: number; waited: number }
  | { [PLACEMENT_TAG]: 'accept'; accept: boolean }
  | { [PLACEMENT_TAG]: 'shed'; share: number };

/** A send's callback that drops its error: placement's messages are worth nothing once the other side is gone. */
export const ignoreSendError = () => {};

/** Whether a message between primary and worker is placement's. */
export const isPlacement = (m: unknown): m is PlacementMessage => typeof m === 'object' && m !== null && PLACEMENT_TAG in m;
