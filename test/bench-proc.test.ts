// The benchmark counts the CPU of the Postgres backends serving one process: found by that
// process's client ports (bench/lib/proc.ts clientPorts, then pg_stat_activity).

import { spawn } from 'node:child_process';
import net from 'node:net';
import { clientPorts, processTree } from '../bench/lib/proc';

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

linux('the process tree of a process holds its children and their children (a cluster\'s workers), and not its parent', async () => {
  // A child that starts a grandchild and prints its pid.
  const child = spawn(process.execPath, ['-e', `
    const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    console.log(c.pid); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const grandchild = Number(await new Promise<string>((resolve) => child.stdout.once('data', (d) => resolve(String(d)))));
    expect(processTree(child.pid!)).toEqual([child.pid, grandchild]);
    expect(processTree(process.pid)).toEqual(expect.arrayContaining([process.pid, child.pid, grandchild]));
    expect(processTree(grandchild)).toEqual([grandchild]);
    process.kill(grandchild);
  } finally {
    child.kill();
  }
});
