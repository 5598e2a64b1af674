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
  /** Our SOAP 1.1 GetMonster rps over the bare node-soap server's rps. */
  soap11: number;
  /** Our HTTP GET GetMonster rps over the raw http ceiling's rps. */
  httpGet: number;
  /**
   * The same comparisons by CPU per request (the reference's over ours): what each would serve
   * on a core of its own. Steadier than rps on a shared machine, where a process does not always
   * get the core it asks for.
   */
  cpu: { soap11: number; httpGet: number };
  rps: { soap11: number; nodeSoap: number; httpGet: number; ceiling: number };
}

export interface Ratios {
  /** Median, lowest and highest of the rounds. */
  soap11VsNodeSoap: Spread | null;
  httpGetVsCeiling: Spread | null;
  /** The same by CPU per request. */
  cpuSoap11VsNodeSoap: Spread | null;
  cpuHttpGetVsCeiling: Spread | null;
  rounds: Round[];
  /** Every case's rps over the median ceiling rps (measured at another moment: a rough guide). */
  vsCeiling: Record<string, number | null>;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export function toRound(soap11: Measurement, nodeSoap: Measurement, httpGet: Measurement, ceiling: Measurement): Round {
  return {
    soap11: round3(soap11.rps / nodeSoap.rps),
    httpGet: round3(httpGet.rps / ceiling.rps),
    cpu: {
      soap11: round3(nodeSoap.serverCpuUsPerRequest / soap11.serverCpuUsPerRequest),
      httpGet: round3(ceiling.serverCpuUsPerRequest / httpGet.serverCpuUsPerRequest),
    },
    rps: { soap11: soap11.rps, nodeSoap: nodeSoap.rps, httpGet: httpGet.rps, ceiling: ceiling.rps },
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function spread(values: number[]): Spread | null {
  if (values.length === 0) return null;
  return { median: round3(median(values)), min: Math.min(...values), max: Math.max(...values) };
}

export function ratios(cases: CaseResult[], rounds: Round[]): Ratios {
  const ceiling = rounds.length ? median(rounds.map((r) => r.rps.ceiling)) : undefined;
  return {
    soap11VsNodeSoap: spread(rounds.map((r) => r.soap11)),
    httpGetVsCeiling: spread(rounds.map((r) => r.httpGet)),
    cpuSoap11VsNodeSoap: spread(rounds.map((r) => r.cpu.soap11)),
    cpuHttpGetVsCeiling: spread(rounds.map((r) => r.cpu.httpGet)),
    rounds,
    vsCeiling: Object.fromEntries(cases.map((c) => [c.name, ceiling ? round3(c.measurement.rps / ceiling) : null])),
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
    m.flagged ? `${m.non2xx} non-2xx, ${m.errors} err/timeout, ${m.wrong2xx} bad 2xx` : '0',
    String(Math.round(m.cpuPct.server)),
    m.cpuPct.postgres === null ? '-' : String(Math.round(m.cpuPct.postgres)),
    String(Math.round(m.cpuPct.loadGenerator)),
    m.cpuMsPerRequest.server.toFixed(2),
    m.cpuMsPerRequest.postgres === null ? '-' : m.cpuMsPerRequest.postgres.toFixed(2),
    (m.bytesPerResponse / 1024).toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)].join('\n');
}

export function ratioLines(r: Ratios): string {
  const show = (v: Spread | null) => (v === null ? 'n/a' : `${v.median.toFixed(3)} (median of ${r.rounds.length} rounds; ${v.min.toFixed(3)} to ${v.max.toFixed(3)})`);
  return [
    `GetMonster / SOAP 1.1 rps / bare node-soap rps: ${show(r.soap11VsNodeSoap)}`,
    `GetMonster / HTTP GET rps / raw http ceiling rps: ${show(r.httpGetVsCeiling)}`,
    `by CPU per request (reference's / ours): SOAP 1.1 vs bare node-soap ${show(r.cpuSoap11VsNodeSoap)}`,
    `by CPU per request (reference's / ours): HTTP GET vs raw http ceiling ${show(r.cpuHttpGetVsCeiling)}`,
    'all cases rps / median ceiling rps (measured at other moments: a rough guide):',
    ...Object.entries(r.vsCeiling).map(([k, v]) => `  ${k.padEnd(40)} ${v === null ? 'n/a' : v.toFixed(3)}`),
  ].join('\n');
}
