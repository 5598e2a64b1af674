// A worker's side of connection placement (src/placement/worker.ts) told by its primary to give up
// connections, outside a cluster: `node bin/run-ts.js test/support/placement-shed-run.ts <scenario>`.
// The primary's messages are emitted on `process` as node:cluster delivers them; the server's
// accept and refuse are recorded, not done. Prints one JSON object: what happened, in order, with
// the milliseconds since the shed.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import net, { type AddressInfo, type Socket } from 'node:net';
import { followPlacement, SHED_PAUSE_MAX_MS } from '../../src/placement/worker';
import { PLACEMENT_TAG, type PlacementMessage } from '../../src/placement/messages';

const scenario = process.argv[2];
const events: string[] = [];
let shedAt = 0;
const note = (what: string) => events.push(`${what} ${shedAt ? Math.round(performance.now() - shedAt) : 0}`);

const server = http.createServer((req, res) => {
  if (placement.closes(req.socket)) res.setHeader('Connection', 'close');
  res.end('ok');
});
const placement = followPlacement(server, {
  accept: async () => {
    note('accept');
  },
  refuse: () => {
    note('refuse');
  },
  waitedForDatabase: () => 0,
});
const tell = (message: PlacementMessage) => process.emit('message', message, undefined);

/** One request on `socket`, kept alive: whether the answer said it closes. */
function ask(socket: Socket): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (d: Buffer) => {
      text += d.toString('latin1');
      if (text.endsWith('ok')) {
        socket.off('data', onData);
        resolve(/\r\nconnection: close\r\n/i.test(text));
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  });
}

/** One request on each of `sockets`, at once: which answers said they close (noted). */
async function askAll(sockets: Socket[]): Promise<boolean[]> {
  const closes = await Promise.all(sockets.map(ask));
  note(`closing ${closes.filter(Boolean).length} of ${closes.length}`);
  return closes;
}

// After placement's own listener, but what placement does on a close (listening again) waits for a
// promise's turn: a connection's end is noted first.
server.on('connection', (socket: Socket) => socket.once('close', () => note('closed')));

async function main() {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const sockets = await Promise.all(Array.from({ length: 4 }, () => new Promise<Socket>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
  })));
  // Every connection has reached the server before the shed.
  for (const s of sockets) await ask(s);
  shedAt = performance.now();
  tell({ [PLACEMENT_TAG]: 'shed', share: 0.5, pause: scenario !== 'no-pause' });
  note('shed');
  if (scenario === 'answered') {
    // Each connection sends its next request: half are told to close, and do.
    const closes = await askAll(sockets);
    await Promise.all(sockets.filter((_, i) => closes[i]).map((s) => new Promise((resolve) => s.end(() => s.once('close', resolve)))));
    await sleep(50);
  } else if (scenario === 'silent') {
    // No connection sends anything: the pause ends at SHED_PAUSE_MAX_MS.
    await sleep(SHED_PAUSE_MAX_MS + 200);
  } else if (scenario === 'shed-again') {
    // Told, during the pause, to give up more without a pause: the pause still ends when it would.
    await sleep(SHED_PAUSE_MAX_MS / 2);
    note('shed, no pause');
    tell({ [PLACEMENT_TAG]: 'shed', share: 0.5, pause: false });
    await sleep(SHED_PAUSE_MAX_MS);
  } else if (scenario === 'no-pause') {
    // Told to give up connections without a pause: it goes on accepting.
    await askAll(sockets);
    await sleep(SHED_PAUSE_MAX_MS + 200);
  } else if (scenario === 'told-to-accept') {
    // Told to accept during the pause (as when a worker starts or ends): it listens again at once.
    await sleep(100);
    note('told to accept');
    tell({ [PLACEMENT_TAG]: 'accept', accept: true });
    await sleep(SHED_PAUSE_MAX_MS + 200);
  } else if (scenario === 'told-to-stop') {
    // Told to stop accepting during the pause: it does not listen again when the pause ends, only when told to accept.
    tell({ [PLACEMENT_TAG]: 'accept', accept: false });
    await sleep(SHED_PAUSE_MAX_MS + 200);
    note('told to accept');
    tell({ [PLACEMENT_TAG]: 'accept', accept: true });
    await sleep(50);
  }
  placement.stop();
  for (const s of sockets) s.destroy();
  server.close();
  process.stdout.write(`${JSON.stringify({ events, pauseMaxMs: SHED_PAUSE_MAX_MS })}\n`);
}

void main();
