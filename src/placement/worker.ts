import type { Socket } from 'node:net';
import type http from 'node:http';
import { ignoreSendError, isPlacement, ownCoresMeter, PLACEMENT_TAG, REPORT_MS, type PlacementMessage } from './messages';

export interface WorkerPlacementOptions {
  /** Listens again on the service's port (as at start), with the extra handles. */
  accept: () => Promise<void>;
  /** Stops accepting: closes the extra handles and the server's own (its connections stay). */
  refuse: () => void;
  /** Calls that have waited for a database connection since the start. */
  waitedForDatabase: () => number;
}

export interface WorkerPlacement {
  /** Whether the answer on `socket` closes its connection (the client reconnects, elsewhere). */
  closes(socket: Socket): boolean;
  /** Stops reporting and following (on shutdown). */
  stop(): void;
}

/**
 * How long at most a worker that gave up connections stops accepting: until they have all closed,
 * so that their clients, reconnecting at once, find only the other workers' handles listening. An
 * idle worker asleep in the kernel is woken to accept, while the one that gave them up is already
 * running and took them straight back in its next turn: relieved three times in a row in one bench
 * round, a worker kept all 64 (docs/performance.md, issue 18, twenty-sixth pass). A connection with
 * no next request never closes: the pause ends at this.
 */
export const SHED_PAUSE_MAX_MS = 1_000;

/**
 * A worker's side of connection placement (placement/primary.ts): reports its CPU and database
 * waits to the primary every REPORT_MS, and follows its word: stop accepting new connections
 * (and move the ones it has: each closes after its next answer, so the client reconnects to a
 * worker that accepts), accept again, or give up a share of its connections the same way (when
 * told to pause, not accepting until they have gone: SHED_PAUSE_MAX_MS).
 */
export function followPlacement(server: http.Server, opts: WorkerPlacementOptions): WorkerPlacement {
  const connections = new Set<Socket>();
  const closing = new WeakSet<Socket>();
  let stopped = false;
  // Accepting as last asked, and not while the connections of a shed leave (`leaving`); a change of
  // listening waits for the one before it. Not accepting, every connection it still has closes after
  // its next answer.
  let change = Promise.resolve();
  let accepting = true;
  let listening = true;
  const leaving = new Set<Socket>();
  let pauseEnds: NodeJS.Timeout | undefined;

  const follow = () => {
    if (stopped) return;
    const want = accepting && leaving.size === 0;
    if (want === listening) return;
    listening = want;
    const next = want ? opts.accept : async () => opts.refuse();
    // Listening again can fail only as the server's 'error', which its handler logs.
    change = change.then(next).catch(() => {});
  };
  const clearPause = () => {
    clearTimeout(pauseEnds);
    leaving.clear();
  };
  const endPause = () => {
    clearPause();
    follow();
  };

  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => {
      connections.delete(socket);
      if (leaving.delete(socket) && leaving.size === 0) endPause();
    });
  });

  const ownCores = ownCoresMeter();
  let waited = opts.waitedForDatabase();
  const timer = setInterval(() => {
    const waitedNow = opts.waitedForDatabase();
    const message: PlacementMessage = { [PLACEMENT_TAG]: 'load', cpu: ownCores(), waited: waitedNow - waited };
    waited = waitedNow;
    if (process.connected) process.send!(message, undefined, undefined, ignoreSendError);
  }, REPORT_MS).unref();

  const onMessage = (message: unknown) => {
    if (stopped || !isPlacement(message)) return;
    if (message[PLACEMENT_TAG] === 'accept') {
      // Told to accept (as every worker is when one starts or ends): at once, paused or not.
      if (message.accept) clearPause();
      accepting = message.accept;
      follow();
    } else if (message[PLACEMENT_TAG] === 'shed') {
      let left = Math.round(connections.size * message.share);
      for (const socket of connections) {
        if (left-- <= 0) break;
        closing.add(socket);
        if (message.pause) leaving.add(socket);
      }
      // A shed without a pause leaves one under way as it is.
      if (!message.pause || leaving.size === 0) return;
      clearTimeout(pauseEnds);
      pauseEnds = setTimeout(endPause, SHED_PAUSE_MAX_MS);
      follow();
    }
  };
  process.on('message', onMessage);

  return {
    closes: (socket) => !accepting || closing.has(socket),
    stop: () => {
      stopped = true;
      clearInterval(timer);
      clearTimeout(pauseEnds);
      process.off('message', onMessage);
    },
  };
}
