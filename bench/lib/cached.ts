/**
 * The cached part of `npm run bench` (see bench/README.md): 12 cases (four operations over SOAP
 * 1.1, SOAP 1.2 and HTTP GET) on one service process with its answer cache as configured; then in
 * rounds our GetMonster next to the bare node-soap reference, the raw http ceiling and the same
 * raw server in the service's layout (a primary and a worker per core); then the 75 KB answer
 * plain and compressed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCases, countRecords, type BenchCase, type DatasetProfile } from './cases';
import { measureCompression, type CompressionResult } from './compression';
import { backendsOfClient } from './database';
import { measure, type Measurement, type MeasureOptions, type Target } from './measure';
import { readyOrigin, type Child } from './proc';
import { failure, toRound, type CaseResult, type Round } from './report';
import { scrapeBuckets, serviceLatency, type ServiceLatency } from './service-latency';
import { usableCores } from '../../src/cpu-quota';

export interface CachedContext {
  serviceEnv: NodeJS.ProcessEnv;
  dbUrl: string;
  profile: DatasetProfile;
  key: { DevID: number; DevKey: string };
  opts: MeasureOptions;
  primeSeconds: number;
  rounds: number;
  /** Only the cases whose name contains this. */
  only?: string;
  skipRefs: boolean;
  skipCompression: boolean;
  /** Run the service under `node --cpu-prof`, writing its profile here. */
  profileDir?: string;
  start(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: Child; match: RegExpMatchArray }>;
  stop(child: Child): Promise<void>;
  log(s: string): void;
  progress(s: string): void;
}

export interface CachedResult {
  results: CaseResult[];
  rounds: Round[];
  refs: Record<string, Measurement>;
  compression: CompressionResult[];
  /** Every case's checked answer. */
  expected: Map<string, { text: string; records: number }>;
}

async function fetchChecked(origin: string, req: BenchCase['request']): Promise<{ status: number; text: string; type: string }> {
  const res = await fetch(`${origin}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

/** The fixed GetMonster answer for the node-soap reference, taken from our own response. */
function monsterObject(xml: string): Record<string, unknown> {
  const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
  const field = (name: string) => {
    const m = new RegExp(`<(?:[\\w.-]+:)?${name}>([^<]*)</(?:[\\w.-]+:)?${name}>`).exec(xml);
    return m ? unescape(m[1]) : undefined;
  };
  const description = /<(?:[\w.-]+:)?Description>\s*<(?:[\w.-]+:)?Description>([^<]*)</.exec(xml);
  return {
    MonsterName: field('MonsterName'),
    MonsterID: Number(field('MonsterID')),
    Description: description ? { Description: unescape(description[1]), ItemPictureURL: field('ItemPictureURL') } : undefined,
  };
}

export async function runCachedCases(ctx: CachedContext): Promise<CachedResult> {
  const nodeArgs = ctx.profileDir ? ['--cpu-prof', '--cpu-prof-dir', ctx.profileDir] : [];
  // `svapi serve` as shipped: one worker per core.
  const service = await ctx.start([...nodeArgs, 'bin/svapi.js', 'serve'], ctx.serviceEnv, /svapi listening on (http:\/\/\S+)/);
  const origin = service.match[1];
  ctx.log(`service: pid ${service.child.pid} at ${origin}`);

  // Every case's answer is checked once before it is measured.
  const allCases = buildCases(ctx.profile, ctx.key.DevID, ctx.key.DevKey);
  const cases = ctx.only ? allCases.filter((c) => c.name.toLowerCase().includes(ctx.only!.toLowerCase())) : allCases;
  const expected = new Map<string, { text: string; records: number }>();
  for (const c of allCases) {
    const r = await fetchChecked(origin, c.request);
    if (r.status !== 200) throw new Error(`${c.name}: status ${r.status}: ${r.text.slice(0, 400)}`);
    expected.set(c.name, { text: r.text, records: countRecords(r.text, c.operation.record) });
  }

  // Prime: every case briefly, so the first measured case does not pay for JIT and lazy loading
  // (at 8 connections: a slow case must not leave a deep backlog behind).
  if (ctx.primeSeconds > 0) {
    const primeConnections = Math.min(8, ctx.opts.connections);
    ctx.progress(`priming: every case for ${ctx.primeSeconds} s at ${primeConnections} connections ... `);
    for (const c of cases) {
      await measure({ origin, request: c.request, expected: expected.get(c.name)!.text }, service.child.pid,
        { connections: primeConnections, warmupSeconds: 0, durationSeconds: ctx.primeSeconds, generator: ctx.opts.generator });
    }
    ctx.log('done');
  }

  const results: CaseResult[] = [];
  for (const [i, c] of cases.entries()) {
    const exp = expected.get(c.name)!;
    // Settle: a slow case leaves queued work in the service after its clients are gone. One
    // request of this case, checked again, waits behind that backlog before the warm-up starts.
    const settled = Date.now();
    let again = await fetchChecked(origin, c.request);
    while (again.status !== 200 && Date.now() - settled < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      again = await fetchChecked(origin, c.request);
    }
    if (again.status !== 200 || again.text !== exp.text) throw new Error(`${c.name}: the answer changed (status ${again.status})`);
    const settleMs = Date.now() - settled;
    ctx.progress(`[${i + 1}/${cases.length}] ${c.name} (${exp.records} records, ${(Buffer.byteLength(exp.text) / 1024).toFixed(1)} KB${settleMs > 1000 ? `, settled ${settleMs} ms` : ''}) ... `);
    const target: Target = { origin, request: c.request, expected: exp.text };
    let inService: ServiceLatency | undefined;
    const m = await measure(target, service.child.pid, ctx.opts, () => backendsOfClient(ctx.dbUrl, service.child.pid), async () => {
      const before = await scrapeBuckets(origin, c.operation.name, c.binding);
      return async () => { inService = serviceLatency(before, await scrapeBuckets(origin, c.operation.name, c.binding)); };
    });
    results.push({ name: c.name, operation: c.operation.name, binding: c.binding, records: exp.records, measurement: m, inService });
    ctx.log(`${m.rps.toFixed(0)} rps, p50 ${m.latencyMs.p50} ms, p99 ${m.latencyMs.p99} ms (in the service: p99 <= ${inService?.p99AtMostMs ?? '?'} ms), ${m.peakRssMB} MB${failure(m) ? `  FAILED: ${failure(m)}` : ''}`);
  }
  // The references, each in its own child process, with the SOAP 1.1 GetMonster request,
  // started next to the service (idle while it is not measured). The machine's speed drifts (on
  // a shared VM the ceiling alone has measured anywhere from 15,000 to 29,000 rps in one
  // session), so each ratio is taken in rounds: ours and its reference measured back to back,
  // the ratio per round, and the median of the rounds reported.
  const rounds: Round[] = [];
  const refs: Record<string, Measurement> = {};
  if (!ctx.skipRefs) {
    const getMonster = (binding: string) => allCases.find((c) => c.operation.name === 'GetMonster' && c.binding === binding)!;
    const [soap11, httpGet] = [getMonster('SOAP 1.1'), getMonster('HTTP GET')];
    const ours11 = expected.get(soap11.name)!;
    const request = soap11.request;
    const soapRef = await ctx.start(['bin/run-ts.js', 'bench/refs/node-soap.ts', JSON.stringify(monsterObject(ours11.text))], process.env, /^\{"url"/);
    const soapOrigin = readyOrigin(soapRef.match);
    const soapAnswer = await fetchChecked(soapOrigin, request);
    if (soapAnswer.status !== 200 || !soapAnswer.text.includes('MonsterName')) {
      throw new Error(`node-soap reference: status ${soapAnswer.status}: ${soapAnswer.text.slice(0, 400)}`);
    }
    const bodyFile = path.join(os.tmpdir(), `svapi-bench-${process.pid}.xml`);
    fs.writeFileSync(bodyFile, ours11.text);
    const raw = await ctx.start(['bin/run-ts.js', 'bench/refs/raw-http.ts', bodyFile], process.env, /^\{"url"/);
    const rawOrigin = readyOrigin(raw.match);
    // The ceiling's bytes from the processes `svapi serve` runs: what the layout alone does to the tail.
    const layoutWorkers = usableCores();
    const layout = await ctx.start(['bin/run-ts.js', 'bench/refs/raw-http.ts', bodyFile, '--workers', String(layoutWorkers)], process.env, /^\{"url"/);
    const layoutOrigin = readyOrigin(layout.match);

    for (let i = 1; i <= ctx.rounds; i++) {
      ctx.progress(`[round ${i}/${ctx.rounds}] GetMonster SOAP 1.1 vs bare node-soap, HTTP GET vs raw http ceiling ... `);
      const soapOurs = await measure({ origin, request, expected: ours11.text }, service.child.pid, ctx.opts);
      const soapRefM = await measure({ origin: soapOrigin, request, expected: soapAnswer.text }, soapRef.child.pid, ctx.opts);
      const httpOurs = await measure({ origin, request: httpGet.request, expected: expected.get(httpGet.name)!.text }, service.child.pid, ctx.opts);
      const rawM = await measure({ origin: rawOrigin, request, expected: ours11.text }, raw.child.pid, ctx.opts);
      const layoutM = await measure({ origin: layoutOrigin, request, expected: ours11.text }, layout.child.pid, ctx.opts);
      const round = toRound(soapOurs, soapRefM, httpOurs, rawM, layoutM);
      rounds.push(round);
      if (i === 1) Object.assign(refs, { 'node-soap': soapRefM, 'raw-http': rawM, 'raw-http-layout': layoutM });
      ctx.log(round.failed.length
        ? `FAILED, no ratio taken: ${round.failed.join('; ')}`
        : `${round.soap11.toFixed(3)}, ${round.httpGet.toFixed(3)}; SOAP 1.1 vs ceiling ${round.soap11VsCeiling.toFixed(3)}; p99 HTTP GET ${httpOurs.latencyMs.p99} ms vs ceiling ${rawM.latencyMs.p99} ms, vs the ceiling as primary + ${layoutWorkers} workers ${layoutM.latencyMs.p99} ms (${layoutM.rps.toFixed(0)} rps) (CPU over HTTP GET: the service's processes ${httpOurs.cpuPctByProcess.join(' / ')}%, the load generator ${httpOurs.cpuPct.loadGenerator}%, the machine ${httpOurs.cpuPct.machine}% of ${os.availableParallelism() * 100}%; node-soap ${soapRefM.rps.toFixed(0)} rps, ceiling ${rawM.rps.toFixed(0)} rps)`);
    }
    await ctx.stop(soapRef.child);
    await ctx.stop(raw.child);
    await ctx.stop(layout.child);
    fs.rmSync(bodyFile, { force: true });
  }
  let compression: CompressionResult[] = [];
  const globals = allCases.find((c) => c.operation.name === 'GetMonsterGlobals' && c.binding === 'HTTP GET')!;
  if (!ctx.skipCompression) {
    ctx.log(`${globals.name}, plain and with Accept-Encoding gzip and br, in ${ctx.rounds} rounds:`);
    compression = await measureCompression(origin, globals.request, Buffer.from(expected.get(globals.name)!.text), service.child.pid,
      ctx.opts, ctx.rounds, ctx.progress, ctx.log);
  }
  await ctx.stop(service.child);
  return { results, rounds, refs, compression, expected };
}
