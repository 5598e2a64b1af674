/**
 * The benchmark's load generator: a closed loop of clients on kept-alive connections (undici, one
 * `Client` per connection), each sending its next request as soon as the previous answer is in.
 * Every response is checked against the exact bytes of its own request's answer, chunk by chunk as
 * it arrives (nothing decoded, a body kept only where it is read again), and sorted: a right
 * answer, an overload refusal (ServiceUnavailable with Retry-After), anything else. autocannon
 * decoded every body chunk as UTF-8 into a string: on our non-ASCII 78 KB answers that made it,
 * not the service, the bottleneck (bench/README.md).
 */
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { buildConnector, Client, type Dispatcher } from 'undici';
import type { Request } from './cases';
import { inflatesTo } from './encoding';

/** A request and the exact bytes of its correct answer. */
export interface CheckedRequest {
  request: Request;
  expected: Buffer;
  /**
   * For a compressed answer whose bytes may differ from one response to the next: a body that is
   * not `expected` passes when, decoded as `contentEncoding`, it is exactly `plain`.
   */
  inflatesTo?: { contentEncoding: string; plain: Buffer };
}

export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface LoadOptions {
  /** Worker threads the clients run in (the connections split among them); 1: this thread. */
  threads?: number;
  /** Which request each client sends next: the next of the list, or one drawn at random. */
  order?: 'in turn' | 'random';
  /**
   * A request with no answer (headers, or the next body bytes) for this long is a connection error;
   * none: it waits (the overload bench times every wait, however long).
   */
  timeoutMs?: number;
  /** Called as the clients start, once every thread has loaded (what is measured beside the load starts here). */
  onStart?: () => void;
}

export interface LoadResult {
  seconds: number;
  /** Correct answers (200 with the expected bytes), per second. */
  answeredRps: number;
  /** Latency of the correct answers, ms. */
  answered: Percentiles;
  /** Latency of the overload refusals (ServiceUnavailable with Retry-After), ms. */
  refused: Percentiles;
  /** Latency of every response, whatever its status and body, ms. */
  responded: Percentiles;
  /** Responses by status (e.g. {"200": 9000, "503": 12}); connection errors are not responses. */
  statuses: Record<string, number>;
  /** Responses whose body was not the expected one, whatever their status. */
  wrongBodies: number;
  /** Of those, the 2xx ones. */
  wrong2xx: number;
  /** Anything but a right answer or a refusal: connection errors, wrong bodies, other statuses. */
  other: number;
  /** Of those, connection errors and time-outs (refused, reset, closed before the answer ended). */
  connectionErrors: number;
  otherSample?: string;
  /** Bytes read from the connections, headers included: what came over the wire. */
  bytesRead: number;
  /**
   * The longest wait of a right answer or a refusal, and when it began (ms after the clients
   * started): a wait that began as all the connections opened at once, or in the steady load.
   */
  slowest: Slowest;
}

export interface Slowest {
  ms: number;
  startedAfterMs: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

export function percentiles(ms: ArrayLike<number>): Percentiles {
  if (!ms.length) return { count: 0, p50: 0, p90: 0, p99: 0, max: 0, mean: 0 };
  const sorted = Float64Array.from(ms).sort();
  const at = (q: number) => round1(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: round1(sorted[sorted.length - 1]), mean: round1(sum / sorted.length) };
}

/** What one closed loop saw, before the percentiles (so the loops of several threads add up). */
interface RawLoad {
  wall: number;
  answered: number[];
  refused: number[];
  /** Latency of the other responses (not of connection errors). */
  otherMs: number[];
  statuses: Record<string, number>;
  wrongBodies: number;
  wrong2xx: number;
  other: number;
  connectionErrors: number;
  otherSample?: string;
  bytesRead: number;
  slowest: Slowest;
}

/**
 * `connections` clients for `seconds`, each on a kept-alive connection of its own; a refused
 * client asks again at once (a client that ignores Retry-After: the harder case for the service).
 * Answers and refusals are timed apart. Several threads: one thread handling 1,024 connections and
 * 324 KB answers fell behind on a loaded machine (its own event loop late by up to seconds), and
 * that lateness was timed as the service's.
 */
export async function closedLoop(origin: string, requests: CheckedRequest[], connections: number, seconds: number, opts: LoadOptions = {}): Promise<LoadResult> {
  const n = Math.max(1, Math.min(opts.threads ?? 1, connections));
  const o = { order: opts.order ?? 'in turn', timeoutMs: opts.timeoutMs ?? 0 };
  const share = (i: number) => Math.floor(connections / n) + (i < connections % n ? 1 : 0);
  let parts: RawLoad[];
  if (n === 1) {
    opts.onStart?.();
    parts = [await loop(origin, requests, connections, seconds, o)];
  } else {
    // Each thread loads its code (tsx compiling this file: a second of both cores) before any
    // starts its clients: loading while the others' clients ran was timed as the service's slowness.
    const threads = await Promise.all(Array.from({ length: n }, (_, i) => inThread(origin, requests, share(i), seconds, o)));
    opts.onStart?.();
    parts = await Promise.all(threads.map((start) => start()));
  }
  const wall = Math.max(...parts.map((p) => p.wall));
  const all = <K extends 'answered' | 'refused' | 'otherMs'>(k: K) => parts.flatMap((p) => p[k]);
  const sum = (k: 'wrongBodies' | 'wrong2xx' | 'other' | 'connectionErrors' | 'bytesRead') => parts.reduce((t, p) => t + p[k], 0);
  const statuses: Record<string, number> = {};
  for (const p of parts) for (const [s, count] of Object.entries(p.statuses)) statuses[s] = (statuses[s] ?? 0) + count;
  const answered = all('answered');
  return {
    seconds: round1(wall),
    answeredRps: round1(answered.length / wall),
    answered: percentiles(answered),
    refused: percentiles(all('refused')),
    responded: percentiles([...answered, ...all('refused'), ...all('otherMs')]),
    statuses,
    wrongBodies: sum('wrongBodies'),
    wrong2xx: sum('wrong2xx'),
    other: sum('other'),
    connectionErrors: sum('connectionErrors'),
    otherSample: parts.find((p) => p.otherSample)?.otherSample,
    bytesRead: sum('bytesRead'),
    slowest: slowestOf(parts.map((p) => p.slowest)),
  };
}

/** The slowest of the threads' slowest waits, its wait rounded as the percentiles' are. */
function slowestOf(waits: Slowest[]): Slowest {
  const s = waits.reduce((a, b) => (b.ms > a.ms ? b : a));
  return { ms: round1(s.ms), startedAfterMs: s.startedAfterMs };
}

type LoopOptions = Required<Pick<LoadOptions, 'order' | 'timeoutMs'>>;

/**
 * One closed loop in a worker thread of its own (this file, run there under the same loader):
 * resolved once the thread has loaded, with the function that starts its clients and resolves
 * with their result.
 */
function inThread(origin: string, requests: CheckedRequest[], connections: number, seconds: number, opts: LoopOptions): Promise<() => Promise<RawLoad>> {
  return new Promise((ready, failed) => {
    // The thread loads this TypeScript file through tsx, as the bench itself runs (bin/run-ts.js).
    const code = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(__filename)});`;
    const worker = new Worker(code, { eval: true, workerData: { closedLoop: { origin, requests, connections, seconds, opts } } });
    // A thread that fails after it has loaded, before its clients are started, fails their start.
    let died: Error | undefined;
    let fail = (e: Error) => {
      died = e;
      failed(e);
    };
    worker.once('error', (e) => fail(e));
    worker.once('exit', (code) => fail(new Error(`closed-loop thread exited with ${code}`)));
    worker.once('message', () => ready(() => new Promise<RawLoad>((resolve, reject) => {
      if (died) return reject(died);
      fail = reject;
      worker.once('message', resolve);
      worker.postMessage('start');
    })));
  });
}

/** A request's check, made once per run. */
interface Check {
  request: Dispatcher.DispatchOptions;
  expected: Buffer;
  equivalent?: (body: Buffer) => boolean;
}

/** One request and its response as it arrives: the body compared with the expected bytes chunk by chunk. */
class Exchange implements Dispatcher.DispatchHandler {
  readonly t0 = performance.now();
  status = 0;
  retryAfter = false;
  /** So far, the body is the expected bytes up to `offset`. */
  same = true;
  offset = 0;
  /** The body's chunks, kept only where they are read again: a refusal, an answer that may be compressed otherwise. */
  chunks?: Buffer[];
  first?: Buffer;

  constructor(readonly check: Check, private readonly done: (x: Exchange, error?: Error) => void) {}

  // undici takes a handler for its current interface (not the deprecated one) by this method.
  onRequestStart() {}

  onResponseStart(_c: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>) {
    this.status = status;
    this.retryAfter = headers['retry-after'] !== undefined;
    if (status !== 200 || this.check.equivalent) this.chunks = [];
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer) {
    const { expected } = this.check;
    const end = this.offset + chunk.length;
    if (this.same) this.same = end <= expected.length && chunk.compare(expected, this.offset, end) === 0;
    this.offset = end;
    this.first ??= chunk;
    this.chunks?.push(chunk);
  }

  onResponseEnd() {
    this.same &&= this.offset === this.check.expected.length;
    this.done(this);
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error) {
    this.done(this, error);
  }

  body(): Buffer {
    return this.chunks ? Buffer.concat(this.chunks) : (this.first ?? Buffer.alloc(0));
  }
}

function loop(origin: string, requests: CheckedRequest[], connections: number, seconds: number, opts: LoopOptions): Promise<RawLoad> {
  const checks: Check[] = requests.map((c) => ({
    request: { path: c.request.path, method: c.request.method, headers: c.request.headers, body: c.request.body ?? null },
    expected: c.expected,
    equivalent: c.inflatesTo && inflatesTo(c.inflatesTo.plain, c.inflatesTo.contentEncoding),
  }));
  const raw: RawLoad = { wall: 0, answered: [], refused: [], otherMs: [], statuses: {}, wrongBodies: 0, wrong2xx: 0, other: 0, connectionErrors: 0, bytesRead: 0, slowest: { ms: 0, startedAfterMs: 0 } };
  const sockets: Socket[] = [];
  // undici's own default time-outs (10 s to connect, 300 s for an answer) where none is given.
  const connector = buildConnector(opts.timeoutMs ? { timeout: opts.timeoutMs } : {});
  const connect: buildConnector.connector = (options, callback) => connector(options, (error, socket) => {
    if (socket) sockets.push(socket as Socket);
    if (error) callback(error, null);
    else callback(null, socket!);
  });
  let turn = 0;
  const pick = opts.order === 'random' ? () => checks[Math.floor(Math.random() * checks.length)] : () => checks[turn++ % checks.length];
  const started = performance.now();
  const end = started + seconds * 1000;

  const record = (x: Exchange, error?: Error) => {
    const ms = performance.now() - x.t0;
    if (error) {
      raw.other++;
      raw.connectionErrors++;
      raw.otherSample ??= error.message;
      return;
    }
    raw.statuses[x.status] = (raw.statuses[x.status] ?? 0) + 1;
    const right = x.same || (x.check.equivalent?.(x.body()) ?? false);
    if (!right) {
      raw.wrongBodies++;
      if (x.status >= 200 && x.status < 300) raw.wrong2xx++;
    }
    const answer = x.status === 200 && right;
    const refusal = !answer && x.retryAfter && x.body().includes('<Code>ServiceUnavailable</Code>');
    if ((answer || refusal) && ms > raw.slowest.ms) raw.slowest = { ms, startedAfterMs: x.t0 - started };
    if (answer) raw.answered.push(ms);
    else if (refusal) raw.refused.push(ms);
    else {
      raw.other++;
      raw.otherMs.push(ms);
      raw.otherSample ??= `${x.status} ${x.body().subarray(0, 300).toString()}`;
    }
  };

  const client = () => new Promise<void>((resolve) => {
    const c = new Client(origin, { pipelining: 1, connect, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
    const next = (x?: Exchange, error?: Error) => {
      if (x) record(x, error);
      if (performance.now() >= end) {
        void c.destroy().then(resolve);
        return;
      }
      const check = pick();
      c.dispatch(check.request, new Exchange(check, next));
    };
    next();
  });

  return Promise.all(Array.from({ length: connections }, client)).then(() => {
    raw.wall = (performance.now() - started) / 1000;
    raw.bytesRead = sockets.reduce((n, s) => n + s.bytesRead, 0);
    return raw;
  });
}

// In a thread of inThread: at the end of the file, once everything above is defined.
if (!isMainThread && workerData?.closedLoop) {
  const w = workerData.closedLoop as { origin: string; requests: CheckedRequest[]; connections: number; seconds: number; opts: LoopOptions };
  // A Buffer arrives as a Uint8Array.
  const buffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  const requests = w.requests.map((c): CheckedRequest => ({
    request: c.request,
    expected: buffer(c.expected),
    inflatesTo: c.inflatesTo && { contentEncoding: c.inflatesTo.contentEncoding, plain: buffer(c.inflatesTo.plain) },
  }));
  parentPort!.once('message', () => void loop(w.origin, requests, w.connections, w.seconds, w.opts).then((raw) => parentPort!.postMessage(raw)));
  parentPort!.postMessage('loaded');
}
