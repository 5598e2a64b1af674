/**
 * The cached cases' load generator: wrk (Debian's `wrk`), one thread, a closed loop of kept-alive
 * connections sending one request again and again, every response checked by `wrk-check.lua`
 * against the exact bytes of its answer (status and body). wrk takes about half the CPU a request
 * of the undici loop (bench/lib/closed-loop.ts) on this machine, and on two cores what the load
 * generator takes the service cannot have (bench/README.md, "The load generator").
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Request } from './cases';
import type { LoadResult } from './closed-loop';

/** What a run of wrk saw, in the closed loop's terms, and the CPU wrk itself used. */
export type WrkLoad = Pick<LoadResult, 'seconds' | 'responded' | 'statuses' | 'wrongBodies' | 'wrong2xx' | 'connectionErrors' | 'bytesRead' | 'otherSample'> & {
  /** wrk's own CPU, user and system, over the whole run. */
  cpuSeconds: number;
};

const SCRIPT = path.join(__dirname, 'wrk-check.lua');

let found: boolean | undefined;
/** Whether `wrk` can be run here. */
export function wrkAvailable(): boolean {
  found ??= spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
  return found;
}

interface Report {
  requests: number;
  durationUs: number;
  bytes: number;
  statuses: Record<string, number>;
  wrong: number;
  wrong2xx: number;
  connectionErrors: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  meanUs: number;
  sampleHex: string;
}

const ms = (us: number) => Math.round(us / 100) / 10;

/** The children's CPU that a shell's `times` prints last ("0m0.770000s 0m2.050000s"), in seconds. */
export function childrenCpuSeconds(timesOutput: string): number {
  const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s\s*$/.exec(timesOutput);
  if (!m) throw new Error(`no CPU times in: ${timesOutput.slice(-200)}`);
  return Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]);
}

/**
 * `connections` kept-alive connections for `seconds` (whole seconds, at least 1), each sending
 * `request` as soon as its previous answer is in; a request unanswered for `timeoutMs` is an error.
 */
export async function wrkLoad(origin: string, request: Request, expected: Buffer, connections: number, seconds: number, timeoutMs = 10_000): Promise<WrkLoad> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-wrk-'));
  try {
    fs.writeFileSync(path.join(dir, 'method'), request.method);
    fs.writeFileSync(path.join(dir, 'path'), request.path);
    fs.writeFileSync(path.join(dir, 'headers'), Object.entries(request.headers).map(([k, v]) => `${k}: ${v}\n`).join(''));
    fs.writeFileSync(path.join(dir, 'body'), request.body ?? '');
    fs.writeFileSync(path.join(dir, 'expected'), expected);
    const args = ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, `--timeout`, `${Math.ceil(timeoutMs / 1000)}s`, '-s', SCRIPT, `${origin}/`, '--', dir];
    // The shell's `times` gives wrk's CPU as it ends (its rusage, which Node's spawn does not report).
    const child = spawn('/bin/sh', ['-c', 'wrk "$@"; s=$?; times >&2; exit $s', 'sh', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await new Promise<number | null>((resolve, reject) => child.on('error', reject).on('close', resolve));
    const line = out.split('\n').find((l) => l.startsWith('wrk-check '));
    if (code !== 0 || !line) throw new Error(`wrk ${args.join(' ')} exited ${code}: ${(err || out).slice(-400)}`);
    const r = JSON.parse(line.slice('wrk-check '.length)) as Report;
    const sample = Buffer.from(r.sampleHex, 'hex').toString('utf8');
    return {
      seconds: r.durationUs / 1e6,
      responded: { count: r.requests, p50: ms(r.p50Us), p90: ms(r.p90Us), p99: ms(r.p99Us), max: ms(r.maxUs), mean: ms(r.meanUs) },
      statuses: r.statuses,
      wrongBodies: r.wrong,
      wrong2xx: r.wrong2xx,
      connectionErrors: r.connectionErrors,
      bytesRead: r.bytes,
      otherSample: sample || undefined,
      cpuSeconds: childrenCpuSeconds(err),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
