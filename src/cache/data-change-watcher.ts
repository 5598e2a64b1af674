import type { Knex } from 'knex';
import { Client } from 'pg';
import { DATA_CHANGED_CHANNEL, readDataVersion } from '../db/data-version';
import type { Logger } from '../log';
import type { ResultCache } from './result-cache';

const TRUST_MARGIN_MS = 500;
const READ_ONLY_SQL_TRANSACTION = '25006';

interface WatcherOptions {
  /** A real server's URL: LISTEN there for loads as they commit. Unset on the embedded database. */
  listenUrl?: string;
  /** How often the data version is read: the most a cached answer can lag a load without LISTEN. */
  pollMs: number;
  logger: Logger;
}

/**
 * Keeps a ResultCache in step with the data. A load bumps `data_version` and notifies
 * `svapi_data_changed` when it commits (see db/data-version.ts):
 *
 * - on a real server a dedicated connection LISTENs, so the cache is dropped as the load commits;
 *   while that connection is down the cache is not used (a notification could be missed);
 * - every `pollMs` the version is read as well (the only signal on PGlite, whose socket server
 *   delivers no notifications, and on a read replica, which refuses LISTEN and gets the loads
 *   from the primary's replication, not as notifications): a change drops the cache, and a failed read (database down or
 *   hanging) stops its use, so answers during an outage are ServiceUnavailable (CONTRACT §8)
 *   rather than cached ones. A successful read trusts the cache for two intervals and half a
 *   second (a busy database may answer a check late without anything being wrong).
 */
export class DataChangeWatcher {
  private version: number | undefined;
  private listener: Client | undefined;
  private listening = false;
  /** The server is a hot standby: no LISTEN there, the version check alone keeps the cache in step. */
  private replica = false;
  private timer: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly knex: Knex, private readonly cache: ResultCache, private readonly opts: WatcherOptions) {}

  async start(): Promise<void> {
    if (!this.cache.enabled) return;
    if (this.opts.listenUrl) await this.listen();
    await this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.reconnect);
    this.cache.trustUntil(0);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
  }

  private async poll(): Promise<void> {
    try {
      const version = await readDataVersion(this.knex);
      if (version !== this.version) {
        if (this.version !== undefined) this.opts.logger.info({ version }, 'data changed: cached answers dropped');
        this.cache.invalidate(version);
        this.version = version;
      }
      const listenerOk = !this.opts.listenUrl || this.listening || this.replica;
      this.cache.trustUntil(listenerOk ? Date.now() + 2 * this.opts.pollMs + TRUST_MARGIN_MS : 0);
    } catch {
      this.version = undefined;
      this.cache.trustUntil(0);
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.poll(), this.opts.pollMs).unref();
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.opts.listenUrl, application_name: 'svapi-listen', keepAlive: true });
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.listening = false;
      this.cache.trustUntil(0);
      client.end().catch(() => {});
      if (!this.stopped) this.reconnect = setTimeout(() => void this.listen(), this.opts.pollMs).unref();
    };
    this.listener = client;
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      if (n.channel !== DATA_CHANGED_CHANNEL) return;
      this.opts.logger.info({ version: Number(n.payload) }, 'load committed: cached answers dropped');
      this.version = Number(n.payload);
      this.cache.invalidate(this.version);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${DATA_CHANGED_CHANNEL}`);
      // Loads may have committed while nobody listened: start from an empty cache.
      this.cache.invalidate(this.version);
      this.listening = this.listener === client;
    } catch (e) {
      // 25006: "cannot execute LISTEN during recovery", a read replica.
      if ((e as { code?: string }).code !== READ_ONLY_SQL_TRANSACTION) return lost();
      this.listener = undefined;
      this.replica = true;
      client.end().catch(() => {});
      this.opts.logger.info({ checkMs: this.opts.pollMs }, 'the database is a read replica (no LISTEN there): cached answers follow the data version, checked every checkMs');
    }
  }
}
