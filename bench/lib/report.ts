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

export interface Ratios {
  /** SOAP GetMonster rps over the bare node-soap server's rps. */
  soapVsNodeSoap: Record<string, number | null>;
  /** HTTP GET GetMonster rps over the raw http ceiling's rps. */
  httpGetVsCeiling: number | null;
  /** Every case's rps over the ceiling's rps. */
  vsCeiling: Record<string, number | null>;
}

const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? Math.round((a / b) * 1000) / 1000 : null);

export function ratios(cases: CaseResult[], nodeSoap?: Measurement, ceiling?: Measurement): Ratios {
  const rps = (op: string, binding: string) => cases.find((c) => c.operation === op && c.binding === binding)?.measurement.rps;
  return {
    soapVsNodeSoap: {
      'GetMonster / SOAP 1.1': ratio(rps('GetMonster', 'SOAP 1.1'), nodeSoap?.rps),
      'GetMonster / SOAP 1.2': ratio(rps('GetMonster', 'SOAP 1.2'), nodeSoap?.rps),
    },
    httpGetVsCeiling: ratio(rps('GetMonster', 'HTTP GET'), ceiling?.rps),
    vsCeiling: Object.fromEntries(cases.map((c) => [c.name, ratio(c.measurement.rps, ceiling?.rps)])),
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
  const show = (v: number | null) => (v === null ? 'n/a' : v.toFixed(3));
  return [
    ...Object.entries(r.soapVsNodeSoap).map(([k, v]) => `${k} rps / bare node-soap rps: ${show(v)}`),
    `GetMonster / HTTP GET rps / raw http ceiling rps: ${show(r.httpGetVsCeiling)}`,
    'all cases rps / ceiling rps:',
    ...Object.entries(r.vsCeiling).map(([k, v]) => `  ${k.padEnd(40)} ${show(v)}`),
  ].join('\n');
}
