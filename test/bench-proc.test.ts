// The benchmark counts the CPU of the Postgres backends serving one process: found by that
// process's client ports (bench/lib/proc.ts clientPorts, then pg_stat_activity).

import net from 'node:net';
import { clientPorts } from '../bench/lib/proc';

const linux = process.platform === 'linux' ? test : test.skip;

linux("a process's connections to a port are found by their local ports, and only those", async () => {
  const server = net.createServer((s) => s.resume());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const sockets = await Promise.all([1, 2].map(() => new Promise<net.Socket>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
  })));
  try {
    expect(clientPorts(process.pid, port).sort()).toEqual(sockets.map((s) => s.localPort!).sort());
    expect(clientPorts(process.pid, port === 1 ? 2 : 1)).toEqual([]);
  } finally {
    sockets.forEach((s) => s.destroy());
    await new Promise((resolve) => server.close(resolve));
  }
});
