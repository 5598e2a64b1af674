/** What the primary knows of one worker over the last interval. */
export interface WorkerLoad {
  /** CPU the worker used, in cores (1 = a whole core). */
  cpu: number;
  /** Its calls that had to wait for a database connection (its pool was all in use). */
  waited: number;
}

/** One interval's reading: the machine's idle CPU and each worker's load, the accepting ones first. */
export interface Reading {
  /** Idle CPU of the whole machine, in cores. */
  idleCores: number;
  workers: WorkerLoad[];
  /** How many of `workers` (the first ones) accept new connections. */
  accepting: number;
}

/** A worker whose CPU is at least this (cores) is busy enough to want another beside it, when a core is free. */
export const SATURATED_CPU = 0.85;
/** Idle CPU (cores) that lets a CPU-bound service spread: a second worker could only run on that much. */
export const SPREAD_IDLE_FOR_CPU = 0.5;
/** Idle CPU (cores) that lets a service whose calls wait for a database connection spread (another worker brings its own pool). */
export const SPREAD_IDLE_FOR_POOL = 0.25;
/** The machine is full when less than this (cores) is idle. */
export const FULL_IDLE = 0.15;
/**
 * Below this (cores, all workers together) the service is too lightly loaded for packing to matter
 * (its workers seldom run at once); it would be harmless (one worker carries such a load) and stays.
 */
export const LIGHT_CPU = 0.25;
/**
 * Fewer workers carry the load of more when the more use at most this much beyond the fewer's
 * cores: a worker with all the connections does more in each turn of its event loop (a cached
 * GetMonster load that took 99-118% of a core over two workers took 96-97% on one).
 */
export const PACKING_GAIN = 0.25;

/** A worker whose calls wait for its pool, on a machine with room for another pool's worker. */
const poolBound = (w: WorkerLoad, idleCores: number) => w.waited > 0 && idleCores >= SPREAD_IDLE_FOR_POOL;
/** A worker using its core, on a machine with room for another worker's. */
const cpuBound = (w: WorkerLoad, idleCores: number) => w.cpu >= SATURATED_CPU && idleCores >= SPREAD_IDLE_FOR_CPU;

/**
 * How many workers should accept new connections, from one interval's reading (the caller acts
 * only when consecutive readings agree). Connections are packed on as few workers as carry the
 * load while other processes need the machine's cores, and spread when another worker would
 * bring work done:
 * - one more when every accepting worker is saturated (its CPU, or its database pool, which each
 *   worker has its own of) and the machine has idle CPU for another;
 * - one fewer when the machine is full, no call waits for a database connection (the load is the
 *   workers' CPU alone), and the accepting workers' CPU together would fit on one fewer: three
 *   busy processes on two cores (two workers and, say, the clients) make every request wait its
 *   turn on a core, where one worker with a core of its own answers as many as fast.
 * Otherwise as it is.
 */
export function acceptingWorkers(r: Reading): number {
  const active = r.workers.slice(0, r.accepting);
  const cpu = active.reduce((sum, w) => sum + w.cpu, 0);
  const waited = r.workers.some((w) => w.waited > 0);
  if (r.accepting < r.workers.length && active.length > 0) {
    if (active.every((w) => poolBound(w, r.idleCores)) || active.every((w) => cpuBound(w, r.idleCores))) return r.accepting + 1;
  }
  if (r.accepting > 1 && !waited && r.idleCores < FULL_IDLE && cpu >= LIGHT_CPU && cpu <= r.accepting - 1 + PACKING_GAIN) {
    return r.accepting - 1;
  }
  return r.accepting;
}

/** An accepting worker using less CPU than this (cores), with no call waiting for its pool, is idle beside a saturated one. */
export const IDLE_WORKER_CPU = 0.2;
/**
 * Idle CPU (cores) that lets a saturated worker give up connections to an idle one. Less than for
 * spreading onto one more (SPREAD_IDLE_FOR_CPU): the idle worker is already accepting, and the
 * machine's idle CPU is there only because one worker has the load. With one worker saturated on
 * a 2-core machine beside the clients, 0.46 to 0.64 of a core was idle: at half a core, two of
 * three bench rounds of cached answers stayed on one worker (0.50 of the raw ceiling against 0.86
 * split; docs/performance.md, issue 18, twenty-sixth pass).
 */
export const RELIEVE_IDLE = 0.25;

/**
 * The accepting workers that should give up half their connections (indexes into `r.workers`),
 * when the number accepting stays: kept alive, a connection stays on the worker that accepted it,
 * and a burst of new ones may all land on one while another idles (each accepts as fast as its
 * event loop turns). A worker saturated (its pool, or its CPU) beside an accepting worker that
 * idles gives up half, when the machine has RELIEVE_IDLE for it.
 */
export function workersToRelieve(r: Reading): number[] {
  const active = r.workers.slice(0, r.accepting);
  if (r.idleCores < RELIEVE_IDLE || !active.some((w) => w.cpu < IDLE_WORKER_CPU && w.waited === 0)) return [];
  return active.flatMap((w, i) => (w.waited > 0 || w.cpu >= SATURATED_CPU ? [i] : []));
}
