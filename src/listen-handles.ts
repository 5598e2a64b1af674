import cluster from 'node:cluster';
import net from 'node:net';

/**
 * Listening handles a cluster worker accepts on besides the one the cluster gives it: copies of
 * the same listening socket (each its own file descriptor, as `send` passes a handle). libuv
 * accepts one connection per listening handle per turn of the event loop (libuv/libuv#3696), so a
 * worker busy with long turns took a burst of new connections in at 4 to 30 a second: under 1,024
 * connections of 1,000-item answers, clients waited up to 8 s in the kernel's accept queue before
 * the service saw their request (docs/performance.md, "Overload"). With 16 more, when 1,024
 * clients of 1,000-item FindItems connected at once the queue (220 to 510 deep) took 0.33 to 1.36 s
 * to empty, and a /healthz probe behind them up to 1.85 s; with 64 more, 0.13 to 0.20 s, and the
 * probe at most 0.16 s (docs/performance.md, "seventh pass"). A handle costs a file descriptor,
 * and a pending connection wakes each of them.
 */
export const EXTRA_LISTEN_HANDLES = 64;

/** How often a worker that has lent its socket checks that the primary is still there, until the primary answers. */
const ORPHAN_CHECK_MS = 250;

/** The property that marks these messages among the others between primary and workers. */
const TAG = 'svapiListen';

type Kind = 'lend' | 'handle' | 'connection';

function kindOf(message: unknown): Kind | undefined {
  return typeof message === 'object' && message !== null ? (message as Record<string, Kind>)[TAG] : undefined;
}

/**
 * In a cluster worker that accepts its own connections (SVAPI_CLUSTER_SCHEDULING adaptive, pack
 * or none), once `server` listens: asks the primary for EXTRA_LISTEN_HANDLES copies of its listening
 * socket and hands their connections to `server`. The returned function closes the copies (not
 * `server`); this may be called again after they are closed (the worker accepts again).
 * `backlog`: the socket's listen backlog, set again on each copy (node listens on a received
 * server with its default, 511, and the backlog is the socket's, not the copy's).
 */
export function acceptOnMoreHandles(server: net.Server, backlog: number): () => void {
  const handles: net.Server[] = [];
  // Each request for copies is numbered: a copy of an earlier one, arriving after its copies were
  // closed, is closed at once.
  const gen = ++generation;
  open = gen;
  // While the primary has not acknowledged the lent socket, a channel that closes (the primary
  // died) emits no 'disconnect' (node's child_process waits for the acknowledgement first), so
  // node:cluster would not end this worker: it would go on serving with no primary. Until the
  // first copy arrives (the acknowledgement came before it), this checks instead.
  const orphaned = setInterval(() => {
    if (!process.connected) process.exit(0);
  }, ORPHAN_CHECK_MS).unref();
  copiesFor = (handle) => {
    clearInterval(orphaned);
    const copy = net.createServer((socket) => server.emit('connection', socket));
    // An accept error is the server's, as on its own handle.
    copy.on('error', (e: Error) => server.emit('error', e));
    copy.listen(handle, backlog);
    handles.push(copy);
  };
  connectionsTo = server;
  listenForCopies();
  process.send!({ [TAG]: 'lend' satisfies Kind, gen }, server);
  return () => {
    clearInterval(orphaned);
    if (open === gen) open = 0;
    for (const h of handles.splice(0)) h.close();
  };
}

/** The latest request for copies, and the one whose copies are open (0: none). */
let generation = 0;
let open = 0;
let copiesFor: (handle: net.Server) => void = () => {};
let connectionsTo: net.Server | undefined;
let listening = false;

/** The worker's one listener for the primary's copies and passed connections. */
function listenForCopies(): void {
  if (listening) return;
  listening = true;
  process.on('message', (message: unknown, handle: unknown) => {
    const kind = kindOf(message);
    if (kind === 'handle' && handle instanceof net.Server) {
      const gen = (message as { gen?: number }).gen ?? 0;
      if (gen === open) copiesFor(handle);
      else handle.close();
    } else if (kind === 'connection' && handle instanceof net.Socket) {
      connectionsTo?.emit('connection', handle);
    }
  });
}

/**
 * In the cluster primary, before forking: sends a worker that asks (acceptOnMoreHandles) its
 * listening socket back EXTRA_LISTEN_HANDLES times, then closes the copy it received. Received,
 * that copy listens here too until it is closed: it is taken over at once (before the event loop
 * can accept on it) by a server that leaves the connections it accepts unread, and those are
 * passed on to the worker, request and all. `backlog`: as for acceptOnMoreHandles.
 */
export function lendListenHandles(backlog: number): void {
  cluster.on('message', (worker, message: unknown, received: unknown) => {
    if (kindOf(message) !== 'lend' || !(received instanceof net.Server)) return;
    const gen = (message as { gen?: number }).gen;
    const server = net.createServer({ pauseOnConnect: true }, (socket) => {
      if (worker.isConnected()) worker.send({ [TAG]: 'connection' satisfies Kind }, socket);
      else socket.destroy();
    });
    // Closed once the copies are sent, or when the worker goes first (its queued sends then never end).
    const close = () => {
      if (server.listening) server.close();
    };
    worker.once('exit', close);
    server.listen(received, backlog, () => {
      let left = EXTRA_LISTEN_HANDLES;
      const sent = () => {
        if (--left === 0) close();
      };
      for (let i = 0; i < EXTRA_LISTEN_HANDLES; i++) worker.send({ [TAG]: 'handle' satisfies Kind, gen }, server, undefined, sent);
    });
  });
}
