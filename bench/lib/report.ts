import type { Sizes } from './encoding';
import type { Measurement } from './measure';
import type { ServiceLatency } from './service-latency';

export interface CaseResult {
  name: string;
  operation: string;
  binding: string;
  /** Records in the checked response. */
  records: number;
  measurement: Measurement;
  /** The same requests as the service timed them (its /metrics histogram). */
  inService?: ServiceLatency;
}

/** One round of the two headline ratios: ours and its reference measured back to back. */
export interface Round {
  /**
   * The measurements of the round that had an answer but 200, an error or a wrong body (e.g.
   * "HTTP GET: 503 x1200"): a failed round gives no ratio.
   */
  failed: string[];
  /** Our HTTP GET GetMonster p99 over the raw http ceiling's p99 (client side, same connections). */
  p99HttpGetVsCeiling: number;
  /**
   * The same raw server in the service's layout (a primary and a worker per core): its p99 over
   * the one-process ceiling's (what the layout alone does to the tail), and ours over its p99.
   * For information: when it fails (`layoutFailed`) these are null and the round's other ratios
   * still count.
   */
  p99LayoutVsCeiling: number | null;
  p99HttpGetVsLayout: number | null;
  layoutFailed?: string;
  /** Our SOAP 1.1 GetMonster rps over the bare node-soap server's rps. */
  soap11: number;
  /** Our HTTP GET GetMonster rps over the raw http ceiling's rps. */
  httpGet: number;
  /** Our SOAP 1.1 GetMonster rps over the raw http ceiling's rps (the ceiling sends the SOAP 1.1 answer's bytes). */
  soap11VsCeiling: number;
  /**
   * The same comparisons by CPU per request (the reference's over ours): what each would serve
   * on a core of its own. Steadier than rps on a shared machine, where a process does not always
   * get the core it asks for.
   */
  cpu: { soap11: number; httpGet: number; soap11VsCeiling: number };
  rps: { soap11: number; nodeSoap: number; httpGet: number; ceiling: number };
}

export interface Ratios {
  /** Median, lowest and highest of the rounds that did not fail (null: none measured or every one failed). */
  soap11VsNodeSoap: Spread | null;
  httpGetVsCeiling: Spread | null;
  soap11VsCeiling: Spread | null;
  /** The same by CPU per request. */
  cpuSoap11VsNodeSoap: Spread | null;
  cpuHttpGetVsCeiling: Spread | null;
  cpuSoap11VsCeiling: Spread | null;
  /** HTTP GET GetMonster p99 / the ceiling's p99: lower is better. */
  p99HttpGetVsCeiling: Spread | null;
  /** The ceiling in the service's layout: its p99 / the one-process ceiling's, and ours / its. */
  p99LayoutVsCeiling: Spread | null;
  p99HttpGetVsLayout: Spread | null;
  rounds: Round[];
  /** How many rounds failed (a non-200 answer, an error or a wrong body). */
  failedRounds: number;
  /** Every case's rps over the median ceiling rps (measured at another moment: a rough guide). */
  vsCeiling: Record<string, number | null>;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** What made a measurement fail, or undefined: every answer 200 and right. */
export function failure(m: Measurement): string | undefined {
  if (!m.flagged) return undefined;
  const statuses = Object.entries(m.otherStatuses ?? {}).map(([code, n]) => `${code} x${n}`);
  const rest = [m.errors ? `${m.errors} errors/time-outs` : '', m.wrong2xx ? `${m.wrong2xx} wrong bodies` : '', m.requests ? '' : 'no answer'].filter(Boolean);
  return [...statuses, ...rest].join(', ') || 'flagged';
}

export function toRound(soap11: Measurement, nodeSoap: Measurement, httpGet: Measurement, ceiling: Measurement, layout: Measurement): Round {
  const named = { 'SOAP 1.1': soap11, 'node-soap': nodeSoap, 'HTTP GET': httpGet, ceiling };
  const p99Over = (a: Measurement, b: Measurement) => round3(a.latencyMs.p99 / Math.max(b.latencyMs.p99, 1));
  const layoutFailed = failure(layout);
  return {
    failed: Object.entries(named).flatMap(([name, m]) => (failure(m) ? [`${name}: ${failure(m)}`] : [])),
    p99HttpGetVsCeiling: p99Over(httpGet, ceiling),
    p99LayoutVsCeiling: layoutFailed ? null : p99Over(layout, ceiling),
    p99HttpGetVsLayout: layoutFailed ? null : p99Over(httpGet, layout),
    ...(layoutFailed ? { layoutFailed } : {}),
    soap11: round3(soap11.rps / nodeSoap.rps),
    httpGet: round3(httpGet.rps / ceiling.rps),
    soap11VsCeiling: round3(soap11.rps / ceiling.rps),
    cpu: {
      soap11: round3(nodeSoap.serverCpuUsPerRequest / soap11.serverCpuUsPerRequest),
      httpGet: round3(ceiling.serverCpuUsPerRequest / httpGet.serverCpuUsPerRequest),
      soap11VsCeiling: round3(ceiling.serverCpuUsPerRequest / soap11.serverCpuUsPerRequest),
    },
    rps: { soap11: soap11.rps, nodeSoap: nodeSoap.rps, httpGet: httpGet.rps, ceiling: ceiling.rps },
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function spread(values: number[]): Spread | null {
  if (values.length === 0) return null;
  return { median: round3(median(values)), min: Math.min(...values), max: Math.max(...values) };
}

export function ratios(cases: CaseResult[], rounds: Round[]): Ratios {
  const passed = rounds.filter((r) => !r.failed.length);
  const ceiling = passed.length ? median(passed.map((r) => r.rps.ceiling)) : undefined;
  return {
    soap11VsNodeSoap: spread(passed.map((r) => r.soap11)),
    httpGetVsCeiling: spread(passed.map((r) => r.httpGet)),
    soap11VsCeiling: spread(passed.map((r) => r.soap11VsCeiling)),
    cpuSoap11VsNodeSoap: spread(passed.map((r) => r.cpu.soap11)),
    cpuHttpGetVsCeiling: spread(passed.map((r) => r.cpu.httpGet)),
    cpuSoap11VsCeiling: spread(passed.map((r) => r.cpu.soap11VsCeiling)),
    p99HttpGetVsCeiling: spread(passed.map((r) => r.p99HttpGetVsCeiling)),
    p99LayoutVsCeiling: spread(passed.flatMap((r) => (r.p99LayoutVsCeiling === null ? [] : [r.p99LayoutVsCeiling]))),
    p99HttpGetVsLayout: spread(passed.flatMap((r) => (r.p99HttpGetVsLayout === null ? [] : [r.p99HttpGetVsLayout]))),
    rounds,
    failedRounds: rounds.length - passed.length,
    vsCeiling: Object.fromEntries(cases.map((c) => [c.name, ceiling && !c.measurement.flagged ? round3(c.measurement.rps / ceiling) : null])),
  };
}

/**
 * A plain-text table: case, rps, p50, p99 (client side), the p99 bound the service measured itself,
 * peak RSS, errors, then CPU (% of one core, and CPU ms per request for the service and its
 * Postgres backends) and the response size.
 */
export function table(rows: { name: string; records?: number; m: Measurement; inService?: ServiceLatency }[]): string {
  const header = ['case', 'recs', 'rps', 'p50 ms', 'p99 ms', 'srv p99 <= ms', 'peak RSS MB', 'errors', 'srv CPU%', 'pg CPU%', 'gen CPU%', 'srv ms/req', 'pg ms/req', 'resp KB'];
  const lines = rows.map(({ name, records, m, inService }) => [
    `${m.flagged ? '! ' : ''}${name}`,
    records === undefined ? '' : String(records),
    m.rps.toFixed(0),
    m.latencyMs.p50.toFixed(0),
    m.latencyMs.p99.toFixed(0),
    inService?.p99AtMostMs == null ? '-' : String(inService.p99AtMostMs),
    m.peakRssMB.toFixed(0),
    failure(m) ?? '0',
    String(Math.round(m.cpuPct.server)),
    m.cpuPct.postgres === null ? '-' : String(Math.round(m.cpuPct.postgres)),
    String(Math.round(m.cpuPct.loadGenerator)),
    m.cpuMsPerRequest.server.toFixed(2),
    m.cpuMsPerRequest.postgres === null ? '-' : m.cpuMsPerRequest.postgres.toFixed(2),
    (m.bytesPerResponse / 1024).toFixed(1),
  ]);
  return columns(header, lines);
}

export function ratioLines(r: Ratios): string {
  const counted = r.rounds.length - r.failedRounds;
  const show = (v: Spread | null) => (v === null ? 'n/a' : `${v.median.toFixed(3)} (median of ${counted} rounds; ${v.min.toFixed(3)} to ${v.max.toFixed(3)})`);
  return [
    ...r.rounds.flatMap((x, i) => (x.failed.length ? [`round ${i + 1} FAILED, no ratio taken: ${x.failed.join('; ')}`] : [])),
    ...r.rounds.flatMap((x, i) => (x.layoutFailed ? [`round ${i + 1}: the ceiling as primary + workers failed (${x.layoutFailed}), its ratios not taken`] : [])),
    `GetMonster / SOAP 1.1 rps / bare node-soap rps: ${show(r.soap11VsNodeSoap)}`,
    `GetMonster / HTTP GET rps / raw http ceiling rps: ${show(r.httpGetVsCeiling)}`,
    `GetMonster / SOAP 1.1 rps / raw http ceiling rps: ${show(r.soap11VsCeiling)}`,
    `by CPU per request (reference's / ours): SOAP 1.1 vs bare node-soap ${show(r.cpuSoap11VsNodeSoap)}`,
    `by CPU per request (reference's / ours): HTTP GET vs raw http ceiling ${show(r.cpuHttpGetVsCeiling)}`,
    `by CPU per request (reference's / ours): SOAP 1.1 vs raw http ceiling ${show(r.cpuSoap11VsCeiling)}`,
    `GetMonster / HTTP GET p99 / raw http ceiling p99: ${show(r.p99HttpGetVsCeiling)}`,
    `raw http ceiling as primary + workers, p99 / the one-process ceiling's p99: ${show(r.p99LayoutVsCeiling)}`,
    `GetMonster / HTTP GET p99 / the ceiling as primary + workers, p99: ${show(r.p99HttpGetVsLayout)}`,
    'all cases rps / median ceiling rps (measured at other moments: a rough guide):',
    ...Object.entries(r.vsCeiling).map(([k, v]) => `  ${k.padEnd(40)} ${v === null ? 'n/a' : v.toFixed(3)}`),
  ].join('\n');
}

/** Columns right-aligned but the first (and those in `left`); a line of dashes under the header. */
function columns(header: string[], lines: string[][], left: number[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 || left.includes(i) ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)].join('\n');
}

const showSpread = (v: Spread | null) => (v === null ? 'n/a' : `${v.median.toFixed(3)} (${v.min.toFixed(3)}-${v.max.toFixed(3)})`);

/** A row of the uncached table: medians of the rounds. */
export interface UncachedRow {
  name: string;
  samples: number;
  records: number;
  bytes: number;
  flagged: boolean;
  ratio: Spread | null;
  medians: { rps: number; p50: number; p99: number; srvMsPerReq: number; pgMsPerReq: number | null; pgbenchTps: number; pgbenchPgMsPerTx: number };
}

/** The uncached cases next to pgbench: medians of the rounds, and the ratio (median, lowest-highest). */
export function uncachedTable(rows: UncachedRow[]): string {
  const header = ['case (medians of the rounds)', 'samples', 'recs', 'resp KB', 'rps', 'p50 ms', 'p99 ms', 'srv ms/req', 'pg ms/req', 'pgbench tps', 'pgbench pg ms/tx', 'rps / tps'];
  return columns(header, rows.map((r) => [
    `${r.flagged ? '! ' : ''}${r.name}`,
    String(r.samples),
    r.records.toFixed(1),
    (r.bytes / 1024).toFixed(1),
    r.medians.rps.toFixed(0),
    r.medians.p50.toFixed(0),
    r.medians.p99.toFixed(0),
    r.medians.srvMsPerReq.toFixed(2),
    r.medians.pgMsPerReq === null ? '-' : r.medians.pgMsPerReq.toFixed(2),
    r.medians.pgbenchTps.toFixed(0),
    r.medians.pgbenchPgMsPerTx.toFixed(2),
    showSpread(r.ratio),
  ]));
}

/** Response sizes: plain, gzip and brotli (node:zlib), and what the service sent when asked for each. */
export function sizesTable(rows: { name: string; sizes: Sizes; onTheWire?: Record<'gzip' | 'br', number | null> }[]): string {
  const kb = (b: number) => (b / 1024).toFixed(1);
  const pct = (b: number, of: number) => (of ? `${Math.round((b / of) * 100)}%` : '-');
  const wire = (v: number | null | undefined, plain: number) => (v === undefined ? '-' : v === null ? 'uncompressed' : `${kb(v)} (${pct(v, plain)})`);
  return columns(
    ['case', 'plain KB', 'gzip KB', 'br KB', 'service, gzip asked', 'service, br asked'],
    rows.map((r) => [
      r.name, kb(r.sizes.plain), `${kb(r.sizes.gzip)} (${pct(r.sizes.gzip, r.sizes.plain)})`, `${kb(r.sizes.br)} (${pct(r.sizes.br, r.sizes.plain)})`,
      wire(r.onTheWire?.gzip, r.sizes.plain), wire(r.onTheWire?.br, r.sizes.plain),
    ]),
  );
}

/** One line of the final summary: a ratio (median of rounds), its target if it has one, and a note. */
export interface SummaryItem {
  label: string;
  value: Spread | null;
  /** At least this (median); none: reported for information. */
  target?: number;
  /** At most this (median), for a ratio where lower is better (a p99). */
  atMost?: number;
  /** Rounds that failed (a non-200 answer, an error or a wrong body): none of them counts. */
  failedRounds?: number;
  note?: string;
}

export function verdict(item: SummaryItem): string {
  if (item.target === undefined && item.atMost === undefined) return 'info';
  if (item.value === null) return item.failedRounds ? 'FAILED' : 'not measured';
  const met = item.target !== undefined ? item.value.median >= item.target : item.value.median <= item.atMost!;
  return met ? 'met' : 'NOT MET';
}

/** The summary: every ratio with its target and whether the median meets it. */
export function summaryTable(items: SummaryItem[]): string {
  return columns(
    ['ratio', 'median (range)', 'target', 'verdict', 'notes'],
    items.map((i) => [
      i.label, showSpread(i.value), i.target !== undefined ? `>= ${i.target}` : i.atMost !== undefined ? `<= ${i.atMost}` : '-', verdict(i),
      [i.failedRounds ? `${i.failedRounds} round(s) FAILED (answers but 200), not counted` : '', i.note ?? ''].filter(Boolean).join('; '),
    ]),
    [3, 4],
  );
}
