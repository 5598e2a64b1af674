import { BINDING_KINDS, BINDING_LABEL, type BindingKind } from './wsdl-contract';
import { exitCodeOf, type CallResult, type CompareResult } from './run';

/** The kinds of difference with how many calls (or contract findings) showed each, failures first. */
function kindTotals(r: CompareResult): { kind: string; count: number; counts: boolean }[] {
  const counts = new Map<string, { count: number; counts: boolean }>();
  const add = (kind: string, failure: boolean) => {
    const k = counts.get(kind) ?? { count: 0, counts: failure };
    k.count++;
    counts.set(kind, k);
  };
  for (const f of r.contract) add(`contract: ${f.kind}`, f.severity === 'differs');
  for (const c of r.calls) for (const kind of c.kinds) add(kind, c.status !== 'equal');
  return [...counts].map(([kind, v]) => ({ kind, ...v })).sort((a, b) => Number(b.counts) - Number(a.counts) || b.count - a.count || a.kind.localeCompare(b.kind));
}

interface Cell {
  offered: boolean;
  calls: number;
  equal: number;
  differs: number;
  errors: number;
  bothRefused: number;
  firstDifference?: CallResult;
}

/** One cell per operation and binding: how many calls, how they compared, the first that did not. */
export function cells(r: CompareResult): { operation: string; binding: BindingKind; cell: Cell }[] {
  const out: { operation: string; binding: BindingKind; cell: Cell }[] = [];
  for (const [operation, offered] of Object.entries(r.offered)) {
    for (const binding of BINDING_KINDS) {
      const calls = r.calls.filter((c) => c.operation === operation && c.binding === binding);
      out.push({
        operation, binding,
        cell: {
          offered: offered[binding].legacy && offered[binding].svapi,
          calls: calls.length,
          equal: calls.filter((c) => c.status === 'equal').length,
          differs: calls.filter((c) => c.status === 'differs').length,
          errors: calls.filter((c) => c.status === 'error').length,
          bothRefused: calls.filter((c) => c.bothRefused).length,
          firstDifference: calls.find((c) => c.status !== 'equal'),
        },
      });
    }
  }
  return out;
}

function cellText(c: Cell, offered: { legacy: boolean; svapi: boolean }): string {
  if (!c.offered) return !offered.legacy && offered.svapi ? 'not offered' : !offered.svapi && offered.legacy ? 'MISSING' : '-';
  if (!c.calls) return 'not called';
  if (c.errors) return `error ${c.errors}/${c.calls}`;
  if (c.differs) return `differs ${c.differs}/${c.calls}`;
  return `equal ${c.calls}`;
}

const params = (c: CallResult) => `(${Object.entries(c.params).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')})`;

export function textReport(r: CompareResult): string {
  const lines: string[] = [`svapi compare: legacy ${r.legacyUrl}  svapi ${r.svapiUrl}`, ''];
  if (r.unreachable) {
    lines.push(`UNREACHABLE: ${r.unreachable.side} (${r.unreachable.side === 'legacy' ? r.legacyUrl : r.svapiUrl}): ${r.unreachable.reason}`);
  }
  lines.push('Contract (?wsdl of the four endpoints)');
  if (!r.contract.length) lines.push(r.unreachable ? '  not compared' : '  the same for a client');
  for (const f of r.contract) {
    lines.push(`  ${f.severity === 'differs' ? 'DIFFERS' : 'note   '}  ${f.endpoint}  ${f.where}: ${f.kind}: legacy ${f.legacy} | svapi ${f.svapi}`);
  }
  if (r.namespaceAdvice) {
    lines.push(`  -> the namespaces differ: start svapi with SVAPI_NAMESPACE=${r.namespaceAdvice} (the legacy target namespace),`,
      '     or clients generated from the legacy WSDL are refused (UnknownOperation). Answers below are compared as if it were set.');
  }
  const grid = cells(r);
  if (grid.length && !r.unreachable) {
    lines.push('', 'Answers');
    const header = ['operation', ...BINDING_KINDS.map((k) => BINDING_LABEL[k])];
    const rows = Object.keys(r.offered).map((op) => [op, ...BINDING_KINDS.map((k) => cellText(grid.find((g) => g.operation === op && g.binding === k)!.cell, r.offered[op][k]))]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
    for (const row of [header, ...rows]) lines.push(`  ${row.map((v, i) => v.padEnd(widths[i])).join('  ')}`.trimEnd());
    const firsts = grid.filter((g) => g.cell.firstDifference);
    if (firsts.length) {
      // The same first difference on several bindings is shown once, with the first one's path.
      const groups = new Map<string, { c: CallResult; bindings: string[] }>();
      for (const { binding, cell } of firsts) {
        const c = cell.firstDifference!;
        const key = JSON.stringify([c.operation, c.params, c.first!.legacy.replace(/<\w+>/, ''), c.first!.svapi.replace(/HTTP \d+ \S+ .*/, '')]);
        const g = groups.get(key) ?? { c, bindings: [] };
        g.bindings.push(BINDING_LABEL[binding]);
        groups.set(key, g);
      }
      lines.push('', 'First difference per operation and binding');
      for (const { c, bindings } of groups.values()) {
        lines.push(`  ${c.operation} ${params(c)} on ${bindings.join(', ')}: ${c.first!.path}`, `      legacy: ${c.first!.legacy}`, `      svapi:  ${c.first!.svapi}`);
      }
    }
    const refusals = r.calls.filter((c) => c.bothRefused?.detailDiffers);
    if (refusals.length) {
      const c = refusals[0];
      lines.push('', `Both refused ${r.calls.filter((x) => x.bothRefused).length} calls (the same to a client); their faults differ in ${refusals.length}, as expected, e.g.`,
        `  ${c.operation} ${BINDING_LABEL[c.binding]} ${params(c)}`, `      legacy: ${c.bothRefused!.legacy}`, `      svapi:  ${c.bothRefused!.svapi}`);
    }
  }
  for (const side of ['legacy', 'svapi'] as const) {
    const other = side === 'legacy' ? 'svapi answers, legacy refuses' : 'legacy answers, svapi refuses';
    const refusedAll = r.calls.length > 0 && r.calls.every((c) => c.bothRefused || c.kinds.includes(other));
    if (refusedAll && r.calls.some((c) => c.kinds.includes(other))) {
      lines.push('', `Every call to ${side} was refused: check its DevID and DevKey (${side === 'legacy' ? '--legacy-devid, --legacy-devkey-file' : '--devid, --devkey-file'}).`);
    }
  }
  const count = (s: CallResult['status']) => r.calls.filter((c) => c.status === s).length;
  lines.push('', `Totals: ${r.calls.length} calls compared: ${count('equal')} equal, ${count('differs')} differ, ${count('error')} errors; `
    + `requests sent: legacy ${r.requests.legacy}, svapi ${r.requests.svapi}; ${(r.elapsedMs / 1000).toFixed(1)} s`);
  if (r.incomplete) lines.push(`INCOMPLETE: ${r.incomplete}`);
  const kinds = kindTotals(r);
  if (kinds.length) {
    lines.push('Kinds (calls or findings):');
    for (const k of kinds) lines.push(`  ${String(k.count).padStart(5)}  ${k.counts ? '' : '(not a difference) '}${k.kind}`);
  }
  const exit = exitCodeOf(r);
  lines.push('', exit === 0 ? 'Result: nothing a client would notice differs (exit 0)'
    : exit === 1 ? 'Result: a client would notice differences (exit 1)' : 'Result: a side is unreachable (exit 2)');
  return `${lines.join('\n')}\n`;
}

export function jsonReport(r: CompareResult): string {
  return `${JSON.stringify({
    exitCode: exitCodeOf(r),
    legacy: r.legacyUrl,
    svapi: r.svapiUrl,
    unreachable: r.unreachable ?? null,
    incomplete: r.incomplete ?? null,
    namespaceAdvice: r.namespaceAdvice ? { SVAPI_NAMESPACE: r.namespaceAdvice } : null,
    contract: r.contract,
    answers: cells(r).map(({ operation, binding, cell }) => ({
      operation, binding: BINDING_LABEL[binding],
      offered: r.offered[operation][binding],
      calls: cell.calls, equal: cell.equal, differs: cell.differs, errors: cell.errors, bothRefused: cell.bothRefused,
      firstDifference: cell.firstDifference ? { params: cell.firstDifference.params, ...cell.firstDifference.first } : null,
    })),
    totals: {
      calls: r.calls.length,
      equal: r.calls.filter((c) => c.status === 'equal').length,
      differs: r.calls.filter((c) => c.status === 'differs').length,
      errors: r.calls.filter((c) => c.status === 'error').length,
      requests: r.requests,
      elapsedMs: r.elapsedMs,
    },
    kinds: kindTotals(r).map((k) => ({ kind: k.kind, count: k.count, difference: k.counts })),
    calls: r.calls.map((c) => ({ ...c, binding: BINDING_LABEL[c.binding] })),
  }, null, 2)}\n`;
}
