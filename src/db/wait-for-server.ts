import { Client } from 'pg';

/**
 * How a Postgres server that is still starting refuses a connection: nothing listens yet (or its
 * name is not yet in a container network's DNS), or it says it is starting up (57P03). Anything
 * else (a wrong password, an unknown database) will not go away by waiting.
 */
const STARTING = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', '57P03']);

/** Between two attempts. */
const RETRY_MS = 500;

class ServerWaitError extends Error {}

interface WaitOptions {
  /** How long to keep trying, from the first attempt. */
  timeoutMs: number;
  /** The longest one attempt may take. */
  attemptMs: number;
  /** Where the server is, for messages (the URL without its password). */
  where: string;
  /** Told once when the first attempt fails and again when the server answers. */
  report: (line: string) => void;
}

/**
 * Resolves once the server at `url` accepts a connection, or at once when it refuses for a reason
 * waiting does not mend (the command then fails on it with its own message). Throws
 * ServerWaitError when it is still not accepting after `timeoutMs`. For `svapi migrate --wait`,
 * started alongside a server that is not up yet (docker-compose.yml).
 */
export async function waitForServer(url: string, opts: WaitOptions): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let waiting = false;
  let previous: Error | undefined;
  for (;;) {
    const budget = Math.max(1, Math.min(opts.attemptMs, deadline - Date.now()));
    const error = await connectError(url, budget);
    if (!error || !STARTING.has(code(error))) {
      if (waiting) opts.report(error ? `the database at ${opts.where} answered` : `the database at ${opts.where} accepts connections`);
      return;
    }
    if (Date.now() >= deadline) {
      // An attempt the deadline cut short only ran out of time: the answer before it says what refused.
      const shown = budget < opts.attemptMs && code(error) === 'ETIMEDOUT' && previous ? previous : error;
      throw new ServerWaitError(`the database at ${opts.where} did not accept a connection within ${seconds(opts.timeoutMs)}: ${describe(shown)}`);
    }
    previous = error;
    if (!waiting) {
      opts.report(`waiting up to ${seconds(opts.timeoutMs)} for the database at ${opts.where} to accept connections (${describe(error)}) ...`);
      waiting = true;
    }
    await new Promise((r) => setTimeout(r, Math.min(RETRY_MS, Math.max(0, deadline - Date.now()))));
  }
}

async function connectError(url: string, timeoutMs: number): Promise<Error | undefined> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, application_name: 'svapi-wait' });
  // A connection the server drops later (while it stops its temporary init server) must not throw.
  client.on('error', () => {});
  try {
    await client.connect();
    return undefined;
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  } finally {
    await client.end().catch(() => {});
  }
}

/** A system error's code (ECONNREFUSED) or a server's SQLSTATE (57P03); pg's own time-out has none. */
function code(e: Error): string {
  const c = (e as { code?: unknown }).code;
  if (typeof c === 'string') return c;
  return /timeout/i.test(e.message) ? 'ETIMEDOUT' : '';
}

/** Node's error for a name with several addresses, all refused, has a code and no message. */
const describe = (e: Error) => e.message || `${code(e) || e.name}`;

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
