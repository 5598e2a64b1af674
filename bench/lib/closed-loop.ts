import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Request } from './cases';

/** A request and the exact bytes of its correct answer. */
export interface CheckedRequest {
  request: Request;
  expected: Buffer;
}

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface LoadResult {
  seconds: number;
  /** Correct answers (200 with the expected bytes), per second. */
  answeredRps: number;
  /** Latency of the correct answers, ms. */
  answered: Percentiles;
  /** Latency of the overload refusals (ServiceUnavailable with Retry-After), ms. */
  refused: Percentiles;
  /** Anything else: connection errors, wrong bodies, other statuses. */
  other: number;
  /** Of those, connection errors (refused, reset, closed before the answer ended). */
  connectionErrors: number;
  otherSample?: string;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

export function percentiles(ms: number[]): Percentiles {
  if (!ms.length) return { count: 0, p50: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(ms).sort();
  const at = (q: number) => round1(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: round1(sorted[sorted.length - 1]) };
}

/** What one closed loop saw, before the percentiles (so the loops of several threads add up). */
interface RawLoad {
  wall: number;
  answered: number[];
  refused: number[];
  other: number;
  connectionErrors: number;
  otherSample?: string;
}

/**
 * A closed loop: `connections` clients on kept-alive connections, each sending its next request
 * as soon as the previous answer is in; a refused client asks again at once (a client that
 * ignores Retry-After: the harder case for the service). The requests are taken in turn. Unlike
 * autocannon, answers and refusals are timed apart. The clients run in `threads` worker threads
 * (the connections split among them): one thread handling 1,024 connections and 324 KB answers
 * fell behind on a loaded machine (its own event loop late by up to seconds), and that lateness
 * was timed as the service's.
 */
export async function closedLoop(origin: string, requests: CheckedRequest[], connections: number, seconds: number, threads = 1): Promise<LoadResult> {
  const n = Math.max(1, Math.min(threads, connections));
  const parts = n === 1
    ? [await loop(origin, requests, connections, seconds)]
    : await Promise.all(Array.from({ length: n }, (_, i) => inThread(origin, requests, Math.floor(connections / n) + (i < connections % n ? 1 : 0), seconds)));
  const wall = Math.max(...parts.map((p) => p.wall));
  const answered = parts.flatMap((p) => p.answered);
  return {
    seconds: round1(wall),
    answeredRps: round1(answered.length / wall),
    answered: percentiles(answered),
    refused: percentiles(parts.flatMap((p) => p.refused)),
    other: parts.reduce((t, p) => t + p.other, 0),
    connectionErrors: parts.reduce((t, p) => t + p.connectionErrors, 0),
    otherSample: parts.find((p) => p.otherSample)?.otherSample,
  };
}

/** One closed loop in a worker thread of its own (this file, run there under the same loader). */
function inThread(origin: string, requests: CheckedRequest[], connections: number, seconds: number): Promise<RawLoad> {
  return new Promise((resolve, reject) => {
    // The thread loads this TypeScript file through tsx, as the bench itself runs (bin/run-ts.js).
    const code = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(__filename)});`;
    const worker = new Worker(code, { eval: true, workerData: { closedLoop: { origin, requests, connections, seconds } } });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`closed-loop thread exited with ${code}`)));
  });
}

if (!isMainThread && workerData?.closedLoop) {
  const w = workerData.closedLoop as { origin: string; requests: CheckedRequest[]; connections: number; seconds: number };
  // A Buffer arrives as a Uint8Array.
  const requests = w.requests.map((c) => ({ request: c.request, expected: Buffer.from(c.expected.buffer, c.expected.byteOffset, c.expected.byteLength) }));
  void loop(w.origin, requests, w.connections, w.seconds).then((raw) => parentPort!.postMessage(raw));
}

async function loop(origin: string, requests: CheckedRequest[], connections: number, seconds: number): Promise<RawLoad> {  const url = new URL(origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const answered: number[] = [];
  const refused: number[] = [];
  let other = 0;
  let connectionErrors = 0;
  let otherSample: string | undefined;
  let next = 0;
  const started = performance.now();
  const end = started + seconds * 1000;

  const once = (c: CheckedRequest) => new Promise<void>((resolve) => {
    const t0 = performance.now();
    const req = http.request({
      host: url.hostname, port: url.port, agent, method: c.request.method, path: c.request.path, headers: c.request.headers,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const ms = performance.now() - t0;
        const body = Buffer.concat(chunks);
        if (res.statusCode === 200 && body.equals(c.expected)) answered.push(ms);
        else if (res.headers['retry-after'] && body.includes('<Code>ServiceUnavailable</Code>')) refused.push(ms);
        else {
          other++;
          otherSample ??= `${res.statusCode} ${body.subarray(0, 300).toString()}`;
        }
        resolve();
      });
      res.on('error', (e) => {
        other++;
        connectionErrors++;
        otherSample ??= e.message;
        resolve();
      });
    });
    req.on('error', (e) => {
      other++;
      connectionErrors++;
      otherSample ??= e.message;
      resolve();
    });
    req.end(c.request.body);
  });

  const client = async () => {
    while (performance.now() < end) await once(requests[next++ % requests.length]);
  };
  await Promise.all(Array.from({ length: connections }, client));
  agent.destroy();
  return { wall: (performance.now() - started) / 1000, answered, refused, other, connectionErrors, otherSample };
}
