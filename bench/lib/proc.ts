import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

export const ROOT = path.resolve(__dirname, '../..');

export interface Child {
  proc: ChildProcess;
  pid: number;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it is gone. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `node <args>` (cwd: the checkout), and resolves once a stdout line matches `ready`
 * (the match is returned). Its output goes to `log` (a file) as well, or with `outputFile`
 * straight into that file (stdout and stderr), which is then read for `ready`: the service's
 * access log, a line per request, is written by the service alone, as a deployment's log
 * collector would take it, not piped through the load generator's process. Rejects if it exits
 * first or takes longer than `timeoutMs`.
 */
export async function startChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  log: fs.WriteStream,
  timeoutMs = 60_000,
  outputFile?: string,
): Promise<{ child: Child; match: RegExpMatchArray }> {
  const out = outputFile === undefined ? undefined : fs.openSync(outputFile, 'a');
  const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: out === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', out, out] });
  if (out !== undefined) fs.closeSync(out);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  proc.stderr?.on('data', (d) => log.write(d));
  const child: Child = {
    proc,
    pid: proc.pid!,
    exited,
    stop: async (graceMs = 5_000) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => {
      void child.stop(1_000);
      reject(new Error(`${args.join(' ')}: not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    let poll: NodeJS.Timeout | undefined;
    const found = (m: RegExpMatchArray) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve(m);
    };
    if (outputFile === undefined) {
      const lines = readline.createInterface({ input: proc.stdout! });
      lines.on('line', (line) => {
        log.write(`${line}\n`);
        const m = line.match(ready);
        if (m) found(m);
      });
    } else {
      let seen = 0;
      poll = setInterval(() => {
        const text = fs.readFileSync(outputFile, 'utf8');
        const lines = text.split('\n').slice(seen, -1);
        seen += lines.length;
        for (const line of lines) {
          const m = line.match(ready);
          if (m) return found(m);
        }
      }, 50);
    }
    void exited.then((code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`${args.join(' ')} exited with ${code} before it was ready (see ${log.path})`));
    });
  });
  return { child, match };
}

/** The origin a reference server gives in the line it prints once listening: `{"url": "http://...", ...}`. */
export function readyOrigin(ready: RegExpMatchArray): string {
  return new URL((JSON.parse(ready.input!) as { url: string }).url).origin;
}

/** Runs `node bin/svapi.js <args>` to completion; rejects on a non-zero exit. */
export function runSvapi(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['bin/svapi.js', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (err += d));
    proc.once('error', reject);
    proc.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`svapi ${args[0]} exited ${code}: ${err || out}`))));
  });
}

const TICK = 100; // USER_HZ on Linux

function status(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
}
const kb = (text: string, key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);

/** Current resident set, in bytes. */
export function rss(pid: number): number {
  return kb(status(pid), 'VmRSS') * 1024;
}

/** Peak resident set since start or since the last resetPeak, in bytes. */
export function peakRss(pid: number): number {
  return kb(status(pid), 'VmHWM') * 1024;
}

/** Resets VmHWM to the current RSS (Linux: clear_refs 5); false where that is not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** User + system CPU time of a process, in seconds; undefined once it is gone. */
export function tryCpuSeconds(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return undefined;
  }
}

/** User + system CPU time of a process, in seconds (0 once it is gone). */
export const cpuSeconds = (pid: number): number => tryCpuSeconds(pid) ?? 0;

/**
 * The whole machine's busy CPU time (every core: user, nice, system, irq, softirq, steal), in
 * seconds, from /proc/stat: with the server's and the load generator's own, it tells what else
 * had the cores and how much of them was idle.
 */
export function machineBusySeconds(): number {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  return (user + nice + system + irq + softirq + steal) / TICK;
}

/** The parent's PID of a process, from /proc/<pid>/stat; undefined once it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * `pid` and every process below it (a cluster primary and its workers): the service as
 * `svapi serve` ships runs one worker per core, so its CPU, memory and database connections are
 * those of the whole tree.
 */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent === undefined) continue;
    const list = children.get(parent);
    if (list) list.push(Number(entry));
    else children.set(parent, [Number(entry)]);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/**
 * Local ports of `pid`'s TCP connections to `remotePort` (a client's connections to Postgres):
 * its socket inodes (/proc/<pid>/fd) looked up in its /proc/<pid>/net/tcp and tcp6.
 */
export function clientPorts(pid: number, remotePort: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return [];
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9])) continue;
      const port = (address: string) => parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
      if (port(f[2]) === remotePort) ports.push(port(f[1]));
    }
  }
  return ports;
}

/** PIDs of the Postgres backends serving `database` (their process title names it). */
export function backendPids(database: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres:') && cmd.includes(` ${database} `)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Polls VmRSS every `everyMs` and keeps the highest value (for when VmHWM cannot be reset). */
export function rssSampler(pid: number, everyMs = 100) {
  let max = 0;
  const sample = () => {
    try {
      max = Math.max(max, rss(pid));
    } catch {
      // exited
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop(): number {
      clearInterval(timer);
      sample();
      return max;
    },
  };
}

