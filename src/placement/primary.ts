import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log';
import { cgroupCpuQuota } from '../cpu-quota';
import { acceptingWorkers, workersToRelieve, type Reading, type WorkerLoad } from './decide';
import { ignoreSendError, isPlacement, ownCoresMeter, PLACEMENT_TAG, REPORT_MS, type PlacementMessage } from './messages';

/** Readings in a row that must want the same change before it is made. */
const AGREEING_READINGS = 2;
/** After a change (or a worker's start or end), how long before the next: the moved connections settle and the readings follow. */
const HOLD_MS = 3_000;

/** Idle time of every core since boot, in ms. */
const machineIdleMs = () => os.cpus().reduce((sum, cpu) => sum + cpu.times.idle, 0);

const hundredths = (n: number) => Math.round(n * 100) / 100;

/** A reading as the log shows it. */
const readingFields = (r: Reading) => ({
  machineIdleCores: hundredths(r.idleCores),
  workersCpu: r.workers.map((l) => hundredths(l.cpu)),
  waitedForDatabase: r.workers.reduce((n, l) => n + l.waited, 0),
});

/**
 * In the cluster primary (SVAPI_CLUSTER_SCHEDULING adaptive or pack), before forking: every
 * REPORT_MS, from the workers' reports and the machine's idle CPU (placement/decide.ts), has a
 * worker saturated beside an idle one give up half its connections (each closes after its next
 * answer, and the worker accepts none until they have: the client reconnects to the idle one).
 * With `pack`, also decides which workers accept new connections: all of them at start and whenever
 * a worker starts or ends, then the first ones by id; a worker told to stop accepting moves its
 * connections to those that do, and when one more accepts, those that did give it a share.
 */
export function placeConnections(logger: Logger, opts: { pack: boolean }): void {
  const loads = new Map<number, WorkerLoad>();
  let accepting = 0;
  let proposal = '';
  let agreeing = 0;
  let heldUntil = 0;
  let idle0 = machineIdleMs();
  let at = performance.now();
  const ownCores = ownCoresMeter();
  // In a container with a CPU quota the host's idle cores are not ours: what is left of the quota
  // after this service's processes is (read once: a quota rarely changes under a running service).
  const quota = cgroupCpuQuota();

  const alive = () => Object.values(cluster.workers ?? {})
    .filter((w): w is Worker => w !== undefined && w.isConnected())
    .sort((a, b) => a.id - b.id);
  // A worker may be going (stopping, or killed) as it is told: its channel then fails the send
  // (EPIPE), which without a callback is thrown in this process as the worker's 'error'.
  const tell = (worker: Worker, message: PlacementMessage) => {
    if (worker.isConnected()) worker.send(message, undefined, undefined, ignoreSendError);
  };
  const all = () => {
    const workers = alive();
    accepting = workers.length;
    for (const w of workers) tell(w, { [PLACEMENT_TAG]: 'accept', accept: true });
    heldUntil = performance.now() + HOLD_MS;
    agreeing = 0;
  };

  cluster.on('message', (worker, message: unknown) => {
    if (isPlacement(message) && message[PLACEMENT_TAG] === 'load') loads.set(worker.id, { cpu: message.cpu, waited: message.waited });
  });
  cluster.on('fork', all);
  cluster.on('exit', (worker) => {
    loads.delete(worker.id);
    all();
  });

  setInterval(() => {
    const now = performance.now();
    const idleNow = machineIdleMs();
    const hostIdleCores = (idleNow - idle0) / (now - at);
    const primaryCores = ownCores();
    idle0 = idleNow;
    at = now;
    const workers = alive();
    const reported = workers.map((w) => loads.get(w.id));
    loads.clear();
    if (workers.length < 2 || reported.some((l) => l === undefined)) return;
    const serviceCores = primaryCores + (reported as WorkerLoad[]).reduce((sum, l) => sum + l.cpu, 0);
    const idleCores = quota === undefined ? hostIdleCores : Math.min(hostIdleCores, Math.max(0, quota - serviceCores));
    const reading: Reading = { idleCores, workers: reported as WorkerLoad[], accepting: Math.min(accepting, workers.length) };
    const want = opts.pack ? acceptingWorkers(reading) : reading.accepting;
    const relieve = want === reading.accepting ? workersToRelieve(reading) : [];
    logger.debug({ ...readingFields(reading), ...(quota !== undefined && { cpuQuotaCores: quota }), want, relieve }, 'connection placement reading');
    const action = want !== reading.accepting ? `accepting ${want}` : relieve.length > 0 ? `relieve ${relieve.join(' ')}` : '';
    if (action === '' || now < heldUntil) {
      agreeing = 0;
      return;
    }
    agreeing = action === proposal ? agreeing + 1 : 1;
    proposal = action;
    if (agreeing < AGREEING_READINGS) return;
    heldUntil = now + HOLD_MS;
    agreeing = 0;

    if (want === reading.accepting) {
      for (const i of relieve) tell(workers[i], { [PLACEMENT_TAG]: 'shed', share: 0.5, pause: true });
      logger.info({ ...readingFields(reading), relievedWorkers: relieve.map((i) => workers[i].process.pid) }, 'connections moved off saturated workers');
      return;
    }
    const was = reading.accepting;
    workers.forEach((w, i) => tell(w, { [PLACEMENT_TAG]: 'accept', accept: i < want }));
    // No pause: the workers told to accept may not listen yet.
    if (want > was) for (const w of workers.slice(0, was)) tell(w, { [PLACEMENT_TAG]: 'shed', share: 1 - was / want, pause: false });
    accepting = want;
    logger.info({ ...readingFields(reading), acceptingWorkers: want, workers: workers.length },
      want > was ? 'connections spread over more workers' : 'connections packed onto fewer workers');
  }, REPORT_MS).unref();
}
