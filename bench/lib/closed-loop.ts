import http from 'node:http';
import { performance } from 'node:perf_hooks';
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

/**
 * A closed loop: `connections` clients on kept-alive connections, each sending its next request
 * as soon as the previous answer is in; a refused client asks again at once (a client that
 * ignores Retry-After: the harder case for the service). The requests are taken in turn. Unlike
 * autocannon, answers and refusals are timed apart.
 */
export async function closedLoop(origin: string, requests: CheckedRequest[], connections: number, seconds: number): Promise<LoadResult> {
  const url = new URL(origin);
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
  const wall = (performance.now() - started) / 1000;
  return {
    seconds: round1(wall),
    answeredRps: round1(answered.length / wall),
    answered: percentiles(answered),
    refused: percentiles(refused),
    other,
    connectionErrors,
    otherSample,
  };
}
