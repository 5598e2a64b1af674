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
 * A worker's side of connection placement (placement/primary.ts): reports its CPU and database
 * waits to the primary every REPORT_MS, and follows its word: stop accepting new connections
 * (and move the ones it has: each closes after its next answer, so the client reconnects to a
 * worker that accepts), accept again, or give up a share of its connections the same way.
 */
export function followPlacement(server: http.Server, opts: WorkerPlacementOptions): WorkerPlacement {
  const connections = new Set<Socket>();
  const closing = new WeakSet<Socket>();
  let stopped = false;
  // Listening or not, as last asked (a change waits for the one before it); not listening, every
  // connection it still has closes after its next answer.
  let change = Promise.resolve();
  let accepting = true;

  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
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
    if (message[PLACEMENT_TAG] === 'accept' && message.accept !== accepting) {
      accepting = message.accept;
      const next = accepting ? opts.accept : async () => opts.refuse();
      // Listening again can fail only as the server's 'error', which its handler logs.
      change = change.then(next).catch(() => {});
    } else if (message[PLACEMENT_TAG] === 'shed') {
      let left = Math.round(connections.size * message.share);
      for (const socket of connections) {
        if (left-- <= 0) break;
        closing.add(socket);
      }
    }
  };
  process.on('message', onMessage);

  return {
    closes: (socket) => !accepting || closing.has(socket),
    stop: () => {
      stopped = true;
      clearInterval(timer);
      process.off('message', onMessage);
    },
  };
}
