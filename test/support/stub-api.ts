// Generates client stubs from WSDL files with the toolkits partners use, and lists their public
// declarations, one a line, with the package or namespace of the stubs cut off so two sets can
// be compared line for line (test/stub-api.test.ts):
// - Java: JAX-WS wsimport (Debian libjaxws-java), compiled, then `javap -protected`;
// - C#: Mono's `wsdl`, compiled with mcs, listed by reflection (stub-api/PublicApi.cs);
// - C++: gSOAP's wsdl2h header, its declarations without comments.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const HERE = path.join(__dirname, 'stub-api');
const JAVA_DIR = '/usr/share/java';
/** wsimport and what it needs at run time, and the APIs the stubs compile against (JDK 11+ has none of them). */
const JAXWS_JARS = ['jaxws-tools', 'jaxws-rt', 'jaxb-xjc', 'jaxb-core', 'jaxb-impl', 'jaxb-runtime', 'jaxb-api', 'jaxws-api', 'javax.activation'];
const JAXWS_CP = JAXWS_JARS.map((j) => path.join(JAVA_DIR, `${j}.jar`));

/** One WSDL file and the package (Java) or namespace (C#) its stubs go to: a name of letters, digits and dots. */
export interface StubJob {
  name: string;
  wsdl: string;
}

export interface ToolkitStatus {
  /** What is missing to run it, with the Debian package: empty when it can run. */
  missing: string[];
}

const onPath = (tool: string): boolean =>
  (process.env.PATH ?? '').split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, tool)));

export const TOOLKITS = {
  wsimport: (): string[] => [
    ...['java', 'javap'].filter((t) => !onPath(t)).map((t) => `${t} (default-jdk-headless)`),
    ...JAXWS_CP.filter((j) => !fs.existsSync(j)).map((j) => `${j} (libjaxws-java)`),
  ],
  mono: (): string[] => ['wsdl', 'mcs', 'mono'].filter((t) => !onPath(t)).map((t) => `${t} (mono-devel)`),
  gsoap: (): string[] => (onPath('wsdl2h') ? [] : ['wsdl2h (gsoap)']),
};

interface Run {
  code: number | null;
  output: string;
  stdout: string;
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      output += d;
    });
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, output }));
  });
}

async function mustRun(command: string, args: string[], cwd: string): Promise<string> {
  const r = await run(command, args, cwd);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${r.code}:\n${r.output}`);
  return r.stdout;
}

/** Runs `fn` on every item, at most `width` at a time. */
async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: width }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  }));
}

const groupLines = (entries: Array<[string, string]>): Map<string, string[]> => {
  const out = new Map<string, string[]>();
  for (const [group, line] of entries) out.set(group, [...(out.get(group) ?? []), line]);
  for (const lines of out.values()) lines.sort();
  return out;
};

/**
 * wsimport on every job (one JVM, stub-api/WsImportJobs.java), the stubs compiled, then javap:
 * per job, `<Class>: <declaration>` for each class and each public or protected member (fields,
 * constructors, methods with their generic types and throws clauses), sorted.
 */
export async function javaDeclarations(jobs: StubJob[], work: string): Promise<Map<string, string[]>> {
  const dir = path.join(work, 'java');
  fs.mkdirSync(dir, { recursive: true });
  const jobsFile = path.join(dir, 'jobs.txt');
  fs.writeFileSync(jobsFile, jobs.map((j) => `${j.name} ${j.wsdl}\n`).join(''));
  await mustRun('java', ['-cp', JAXWS_CP.join(path.delimiter), path.join(HERE, 'WsImportJobs.java'), jobsFile, dir], dir);
  const classes = path.join(dir, 'classes');
  const names = jobs.flatMap((j) => {
    const pkgDir = path.join(classes, ...j.name.split('.'));
    return fs.readdirSync(pkgDir).filter((f) => f.endsWith('.class') && f !== 'package-info.class').map((f) => `${j.name}.${f.slice(0, -'.class'.length)}`);
  });
  const text = await mustRun('javap', ['-protected', '-cp', [classes, ...JAXWS_CP].join(path.delimiter), ...names], dir);
  const entries: Array<[string, string]> = [];
  let job: StubJob | undefined;
  let cls = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('Compiled from ') || line === '}') continue;
    const header = /^(?:public |protected )?.*\b(?:class|interface|enum) ([\w.$]+)/.exec(line);
    if (header && line.endsWith('{')) {
      job = jobs.find((j) => header[1].startsWith(`${j.name}.`) && !header[1].slice(j.name.length + 1).includes('.'));
      cls = header[1].slice((job?.name.length ?? -1) + 1);
    }
    if (!job) throw new Error(`javap: a class outside the jobs' packages: ${line}`);
    entries.push([job.name, `${cls}: ${line.split(`${job.name}.`).join('')}`]);
  }
  return groupLines(entries);
}

/**
 * Mono's `wsdl` on every job (its SOAP 1.1 proxy, namespace = the job's name), compiled into one
 * assembly, listed by stub-api/PublicApi.cs: per job, `<Type>: <declaration>`, sorted.
 */
export async function csharpDeclarations(jobs: StubJob[], work: string): Promise<Map<string, string[]>> {
  const dir = path.join(work, 'csharp');
  fs.mkdirSync(dir, { recursive: true });
  await pool(jobs, 2, async (j) => {
    const r = await run('wsdl', ['-nologo', `-namespace:${j.name}`, `-out:${j.name}.cs`, j.wsdl], dir);
    if (r.code !== 0 || /warning|error/i.test(r.output)) throw new Error(`wsdl ${j.wsdl}: exit code ${r.code}\n${r.output}`);
  });
  await mustRun('mcs', ['-nologo', '-warn:0', '-target:library', '-r:System.Web.Services.dll', '-r:System.Xml.dll', '-out:stubs.dll', ...jobs.map((j) => `${j.name}.cs`)], dir);
  await mustRun('mcs', ['-nologo', '-out:PublicApi.exe', path.join(HERE, 'PublicApi.cs')], dir);
  const text = await mustRun('mono', ['PublicApi.exe', 'stubs.dll'], dir);
  const entries: Array<[string, string]> = [];
  for (const line of text.split('\n')) {
    const bar = line.indexOf('|');
    if (bar < 0) continue;
    const ns = line.slice(0, bar);
    if (!jobs.some((j) => j.name === ns)) throw new Error(`PublicApi: a type outside the jobs' namespaces: ${line}`);
    entries.push([ns, line.slice(bar + 1)]);
  }
  return groupLines(entries);
}

/**
 * gSOAP's wsdl2h on every job: the header's declarations (classes with their members, service
 * functions, `//gsoap` directives), comments dropped, one statement an entry, sorted (wsdl2h
 * follows the schema's order, which is ASMX's in the fixture and ours in the service).
 */
export async function gsoapDeclarations(jobs: StubJob[], work: string): Promise<Map<string, string[]>> {
  const entries: Array<[string, string]> = [];
  for (const j of jobs) {
    // A folder per job: wsdl2h reads a typemap.dat from where it runs.
    const dir = path.join(work, 'gsoap', j.name);
    fs.mkdirSync(dir, { recursive: true });
    await mustRun('wsdl2h', ['-L', '-o', 'stubs.h', j.wsdl], dir);
    const text = fs.readFileSync(path.join(dir, 'stubs.h'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    let statement: string[] = [];
    let depth = 0;
    for (const raw of text.split('\n')) {
      const line = (/^\s*\/\/gsoap/.test(raw) ? raw : raw.replace(/(^|\s)\/\/.*$/, '')).trim().replace(/\s+/g, ' ');
      if (!line) continue;
      if (line.startsWith('//gsoap') || line.startsWith('#')) {
        if (depth === 0 && statement.length === 0) entries.push([j.name, line]);
        else statement.push(line);
        continue;
      }
      statement.push(line);
      depth += (line.match(/[{(]/g) ?? []).length - (line.match(/[})]/g) ?? []).length;
      if (depth === 0 && line.endsWith(';')) {
        entries.push([j.name, statement.join(' ')]);
        statement = [];
      }
    }
    if (statement.length) entries.push([j.name, statement.join(' ')]);
  }
  return groupLines(entries);
}

/** The lines only in `legacy` (`- `) and only in `served` (`+ `), each as often as it is missing. */
export function differingLines(legacy: readonly string[], served: readonly string[]): string[] {
  const count = new Map<string, number>();
  for (const l of legacy) count.set(l, (count.get(l) ?? 0) + 1);
  for (const l of served) count.set(l, (count.get(l) ?? 0) - 1);
  const out: string[] = [];
  for (const [line, n] of count) for (let i = 0; i < Math.abs(n); i++) out.push(`${n > 0 ? '-' : '+'} ${line}`);
  return out.sort((a, b) => a.slice(2).localeCompare(b.slice(2)) || a.localeCompare(b));
}
