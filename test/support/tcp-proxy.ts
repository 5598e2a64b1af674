import net from 'node:net';

/**
 * A TCP relay in front of a database, to take it away and bring it back: `stop()` drops every
 * connection and the listener (the database is unreachable: connections refused), `start()`
 * listens again on the same port.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private frozen = false;
  /** Connections accepted while frozen, not yet relayed. */
  private readonly parked = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      if (this.frozen) {
        // A database that accepts connections and never answers (until resume()).
        this.parked.add(client);
        this.sockets.add(client);
        client.on('close', () => {
          this.sockets.delete(client);
          this.parked.delete(client);
        });
        client.on('error', () => undefined);
        return;
      }
      this.relay(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * The database stops answering without closing anything: data in flight on open connections
   * is no longer relayed and new connections are accepted but never answered. `thaw()` ends it.
   */
  freeze(): void {
    this.frozen = true;
    for (const s of this.sockets) s.pause();
  }

  /** Back from `freeze()`: connections that hung are dropped, new ones relayed again. */
  thaw(): void {
    this.frozen = false;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.parked.clear();
  }

  /** Back from `freeze()` with nothing lost: a slow database, not a dead one. What waited goes through. */
  resume(): void {
    this.frozen = false;
    const parked = [...this.parked];
    this.parked.clear();
    for (const s of this.sockets) if (!parked.includes(s)) s.resume();
    for (const client of parked) this.relay(client);
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** `url` (a database URL) with its host and port replaced by this proxy's. */
  urlFor(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }
}
