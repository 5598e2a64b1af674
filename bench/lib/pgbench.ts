/**
 * The database alone: pgbench running the statements the service sent for a case (captured from
 * the service itself, bench/lib/capture-sql.js), with the same parameters, at the pool's
 * concurrency. One pgbench transaction is one service request's statements.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { backendsOfClient } from './database';
import { tryCpuSeconds } from './proc';

/** A statement as the service sent it: its text ($1, $2, ...), its parameters as text, its name. */
export interface Statement {
  text: string;
  values: (string | null | { hex: string })[];
  name?: string | null;
}

export interface PgbenchWorkload {
  /** Script files (name, text); with several, pgbench picks one at random for each transaction. */
  files: { name: string; text: string }[];
  /** Variables given with -D (name, value): the parameters pgbench cannot \set (text). */
  defines: [string, string][];
  /** `one script`: the varying parameters drawn with \set; `a script per sample`: one file each. */
  mode: 'one script' | 'a script per sample';
}

/** pgbench takes at most 128 script files. */
const MAX_FILES = 100;
const INTEGER = /^-?\d{1,18}$/;

/**
 * `sql` for a pgbench script: `$n` becomes `:<var(n)>`. pgbench reads any `:name` in the text as a
 * variable, even inside a string literal, so a literal with a colon in it (to_char's 'HH24:MI:SS')
 * is written as the same string in escape syntax (E'HH24\x3AMI\x3ASS'). Line breaks outside
 * literals become spaces (a line that starts with a backslash would be a meta-command).
 */
export function pgbenchSql(sql: string, variable: (n: number) => string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const escapeString = (c === 'E' || c === 'e') && sql[i + 1] === "'" && !/[\w$]/.test(sql[i - 1] ?? '');
    if (c === "'" || escapeString) {
      // A string literal: find its end ('' inside is a quote; in E'' a backslash escapes the next character).
      let j = escapeString ? i + 2 : i + 1;
      let body = '';
      for (;;) {
        if (j >= sql.length) throw new Error(`unterminated string literal in: ${sql}`);
        if (escapeString && sql[j] === '\\') {
          body += sql.slice(j, j + 2);
          j += 2;
        } else if (sql[j] === "'" && sql[j + 1] === "'") {
          body += "''";
          j += 2;
        } else if (sql[j] === "'") break;
        else body += sql[j++];
      }
      if (!body.includes(':')) out += sql.slice(i, j + 1);
      else if (escapeString) out += `E'${body.replace(/:/g, '\\x3A')}'`;
      else out += `E'${body.replace(/\\/g, '\\\\').replace(/:/g, '\\x3A')}'`;
      i = j + 1;
    } else if (c === '"') {
      const j = sql.indexOf('"', i + 1);
      if (j < 0) throw new Error(`unterminated quoted name in: ${sql}`);
      if (sql.slice(i, j).includes(':')) throw new Error(`a quoted name with a colon cannot go to pgbench: ${sql}`);
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '$' && /\d/.test(sql[i + 1] ?? '')) {
      const digits = /^\d+/.exec(sql.slice(i + 1))![0];
      out += `:${variable(Number(digits))}`;
      i += 1 + digits.length;
    } else if (c === '$') {
      throw new Error(`dollar quoting cannot go to pgbench: ${sql}`);
    } else if (c === ':' && sql[i + 1] !== ':' && sql[i - 1] !== ':' && /\w/.test(sql[i + 1] ?? '')) {
      throw new Error(`pgbench would read a variable in: ${sql}`);
    } else {
      out += c === '\n' || c === '\r' ? ' ' : c;
      i++;
    }
  }
  out = out.trim();
  return out.endsWith(';') ? out : `${out};`;
}

/** A pgbench expression that is values[k] for :k in [lo, hi): a balanced tree of CASEs. */
export function caseTree(k: string, values: string[], lo = 0, hi = values.length): string {
  if (hi - lo === 1) return values[lo];
  const mid = (lo + hi) >> 1;
  return `case when :${k} < ${mid} then (${caseTree(k, values, lo, mid)}) else (${caseTree(k, values, mid, hi)}) end`;
}

const textValue = (v: Statement['values'][number], where: string): string => {
  if (typeof v !== 'string') throw new Error(`${where}: a ${v === null ? 'NULL' : 'binary'} parameter cannot go to pgbench`);
  return v;
};

/**
 * The pgbench scripts for the statements of `calls` (one request each, every sample once).
 * When every call sent the same texts and the parameters that differ are integers, one script
 * draws k at random and picks each varying parameter from the samples' values (a tree of CASEs);
 * the others go in with -D. Otherwise (text that differs: search words) one script per sample,
 * each with its own variables, and pgbench picks a script at random.
 */
export function pgbenchWorkload(calls: Statement[][]): PgbenchWorkload {
  if (!calls.length || calls.some((c) => !c.length)) throw new Error('pgbench: a sample sent no statement to capture');
  const texts = (c: Statement[]) => c.map((s) => s.text).join('\n;\n');
  const sameTexts = calls.every((c) => texts(c) === texts(calls[0]));
  if (sameTexts) {
    const defines: [string, string][] = [];
    const sets: string[] = [];
    let integersOnly = true;
    const body = calls[0].map((statement, j) => pgbenchSql(statement.text, (n) => {
      const name = `q${j}p${n}`;
      const values = calls.map((c) => textValue(c[j].values[n - 1], `statement ${j + 1} parameter $${n}`));
      if (values.every((v) => v === values[0])) defines.push([name, values[0]]);
      else if (values.every((v) => INTEGER.test(v))) sets.push(`\\set ${name} ${caseTree('k', values)}`);
      else integersOnly = false;
      return name;
    }));
    if (integersOnly) {
      const head = sets.length ? [`\\set k random(0, ${calls.length - 1})`, ...sets] : [];
      return { files: [{ name: 'workload.sql', text: `${[...head, ...body].join('\n')}\n` }], defines, mode: 'one script' };
    }
  }
  if (calls.length > MAX_FILES) throw new Error(`pgbench: ${calls.length} samples with text parameters that differ; at most ${MAX_FILES}`);
  const defines: [string, string][] = [];
  const files = calls.map((c, f) => ({
    name: `sample${f}.sql`,
    text: `${c.map((statement, j) => pgbenchSql(statement.text, (n) => {
      const name = `s${f}q${j}p${n}`;
      defines.push([name, textValue(statement.values[n - 1], `sample ${f + 1} statement ${j + 1} parameter $${n}`)]);
      return name;
    })).join('\n')}\n`,
  }));
  return { files, defines, mode: 'a script per sample' };
}

export interface PgbenchOptions {
  binary: string;
  /** The database (postgres:// URL on loopback). */
  url: string;
  /** Where to write the script files. */
  dir: string;
  clients: number;
  threads: number;
  seconds: number;
  protocol: 'simple' | 'extended' | 'prepared';
}

export interface PgbenchResult {
  tps: number;
  transactions: number;
  failed: number;
  latencyMsAverage: number;
  /** CPU of the database's backends over the run: % of one core and ms per transaction. */
  pgCpuPct: number;
  pgCpuMsPerTx: number;
  /** pgbench's own CPU, % of one core (the load generator). */
  pgbenchCpuPct: number;
  command: string;
}

/** `pg_config --bindir`/pgbench, else pgbench on the PATH. */
export function findPgbench(): string {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (fs.existsSync(path.join(dir, 'pgbench'))) return path.join(dir, 'pgbench');
  } catch {
    // no pg_config
  }
  return 'pgbench';
}

/** The figures of pgbench's report. */
export function parsePgbenchOutput(out: string): { tps: number; transactions: number; failed: number; latencyMsAverage: number } {
  const num = (re: RegExp) => {
    const m = re.exec(out);
    if (!m) throw new Error(`pgbench's output has no ${re.source}:\n${out}`);
    return Number(m[1]);
  };
  return {
    tps: num(/^tps = ([\d.]+) \(without initial connection time\)/m),
    transactions: num(/^number of transactions actually processed: (\d+)/m),
    failed: /^number of failed transactions: (\d+)/m.test(out) ? num(/^number of failed transactions: (\d+)/m) : 0,
    latencyMsAverage: num(/^latency average = ([\d.]+) ms/m),
  };
}

/** Runs pgbench once on `workload`, watching the CPU of the database's backends and of pgbench. */
export async function runPgbench(workload: PgbenchWorkload, o: PgbenchOptions): Promise<PgbenchResult> {
  fs.mkdirSync(o.dir, { recursive: true });
  const files = workload.files.map((f) => {
    const file = path.join(o.dir, f.name);
    fs.writeFileSync(file, f.text);
    return file;
  });
  const u = new URL(o.url);
  const database = decodeURIComponent(u.pathname.slice(1));
  const args = [
    '-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres'), '-n',
    '-M', o.protocol, '-c', String(o.clients), '-j', String(o.threads), '-T', String(o.seconds),
    ...workload.defines.flatMap(([k, v]) => ['-D', `${k}=${v}`]),
    ...files.flatMap((f) => ['-f', f]),
    database,
  ];
  const env = { ...process.env, PGCLIENTENCODING: 'UTF8', ...(u.password ? { PGPASSWORD: decodeURIComponent(u.password) } : {}) };
  const started = process.hrtime.bigint();
  const proc = spawn(o.binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (err += d));
  // CPU: the backends serving pgbench's connections (found by its ports; new, so all their CPU
  // is pgbench's, connection start included) and pgbench itself, read every 50 ms while it runs
  // (the backends are gone when it ends). New backends are looked for every second, and at first
  // every 100 ms while the connections open.
  const last = new Map<number, number>();
  const backends = new Set<number>();
  let polls = 0;
  let looking: Promise<void> | undefined;
  const lookForBackends = () => {
    looking ??= backendsOfClient(o.url, proc.pid!)
      .then((pids) => pids.forEach((pid) => backends.add(pid)), () => {})
      .finally(() => (looking = undefined));
  };
  const poll = () => {
    if (polls < 20 ? polls % 2 === 0 : polls % 20 === 0) lookForBackends();
    polls++;
    for (const pid of [proc.pid!, ...backends]) {
      const s = tryCpuSeconds(pid);
      if (s !== undefined) last.set(pid, s);
    }
  };
  const first = tryCpuSeconds(proc.pid!) ?? 0;
  const timer = setInterval(poll, 50);
  const code = await new Promise<number | null>((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', resolve);
  }).finally(() => clearInterval(timer));
  await looking;
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const command = `pgbench ${args.map((a) => (/^[\w./:=,-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(' ')}`;
  if (code !== 0) throw new Error(`pgbench exited with ${code}: ${(err || out).slice(-2000)}\n(${command.slice(0, 500)})`);
  const parsed = parsePgbenchOutput(out);
  const pg = [...backends].reduce((n, pid) => n + (last.get(pid) ?? 0), 0);
  const pct = (s: number) => Math.round((s / wall) * 1000) / 10;
  return {
    ...parsed,
    pgCpuPct: pct(pg),
    pgCpuMsPerTx: parsed.transactions ? Math.round((pg * 1000 * 100) / parsed.transactions) / 100 : 0,
    pgbenchCpuPct: pct((last.get(proc.pid!) ?? first) - first),
    command,
  };
}
