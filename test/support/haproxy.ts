import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { freePort } from './redis-server';
import { eventually } from './wait';

/** Whether Debian's haproxy is installed (tests that need it say so and skip otherwise). */
export const haproxyInstalled = spawnSync('haproxy', ['-v']).status === 0;

/** The header each answer through the balancer carries: the name of the server that gave it. */
export const SERVED_BY = 'x-served-by';

/**
 * HAProxy on a free loopback port, round robin over `servers` (name -> port), with the settings
 * deploy/haproxy.cfg has for docker-compose, but checking /readyz every 200 ms (each check given 1 s,
 * for a loaded test machine): a server is taken out after two failed checks, and a request whose connection failed or was closed without an
 * answer is sent again to another server (safe: the service only reads).
 */
export class Haproxy {
  private child: ChildProcess | undefined;
  private dir = '';
  port = 0;

  constructor(private readonly servers: Record<string, number>) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.port = await freePort();
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-haproxy-'));
    const config = path.join(this.dir, 'haproxy.cfg');
    fs.writeFileSync(config, [
      'global',
      '  maxconn 2000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      '  timeout check 1s',
      '  retries 3',
      '  option redispatch 1',
      '  retry-on conn-failure empty-response',
      '  option forwardfor',
      'frontend svapi',
      `  bind 127.0.0.1:${this.port}`,
      '  default_backend svapi',
      'backend svapi',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  default-server check inter 200ms fall 2 rise 2',
      `  http-response set-header ${SERVED_BY} %s`,
      ...Object.entries(this.servers).map(([name, port]) => `  server ${name} 127.0.0.1:${port}`),
      '',
    ].join('\n'));
    const check = spawnSync('haproxy', ['-c', '-q', '-f', config], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`haproxy refused its configuration:\n${check.stderr}`);
    const child = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'inherit', 'inherit'] });
    this.child = child;
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`haproxy exited with ${code}`))));
    exited.catch(() => {});
    const up = await Promise.race([eventually(() => accepts(this.port), 10_000), exited]);
    if (!up) throw new Error('haproxy did not listen within 10 s');
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    }
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
