/** The final summary: every ratio issue 15 asks for, with its target where it sets one. */
import type { CompressionResult } from './compression';
import type { Ratios, SummaryItem } from './report';
import type { UncachedResult } from './uncached';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function summaryItems(r: Ratios, uncached: UncachedResult[], compression: CompressionResult[]): SummaryItem[] {
  const items: SummaryItem[] = uncached.map((u) => ({
    label: `uncached ${u.name}: rps / pgbench tps`,
    value: u.ratio,
    target: u.target,
    note: `srv ${u.medians.srvMsPerReq.toFixed(2)} ms/req, pg ${u.medians.pgMsPerReq?.toFixed(2) ?? '-'} ms/req; `
      + `${u.medians.rps.toFixed(0)} rps vs ${u.medians.pgbenchTps.toFixed(0)} tps (pg ${u.medians.pgbenchPgMsPerTx.toFixed(2)} ms/tx)`,
  }));
  if (r.rounds.length) {
    const ceiling = r.rounds.map((x) => x.rps.ceiling).sort((a, b) => a - b)[Math.floor((r.rounds.length - 1) / 2)];
    items.push(
      { label: 'cached GetMonster / HTTP GET rps / raw http ceiling rps', value: r.httpGetVsCeiling, target: 0.6, note: `ceiling ~${ceiling.toFixed(0)} rps; by CPU/req ${r.cpuHttpGetVsCeiling?.median.toFixed(3) ?? '-'}` },
      { label: 'cached GetMonster / SOAP 1.1 rps / raw http ceiling rps', value: r.soap11VsCeiling, target: 0.5, note: `by CPU/req ${r.cpuSoap11VsCeiling?.median.toFixed(3) ?? '-'}` },
      { label: 'cached GetMonster / SOAP 1.1 rps / bare node-soap rps', value: r.soap11VsNodeSoap, note: `by CPU/req ${r.cpuSoap11VsNodeSoap?.median.toFixed(3) ?? '-'}` },
    );
  }
  const plain = compression.find((c) => c.encoding === 'identity');
  for (const c of compression) {
    if (c.encoding === 'identity' || !plain) continue;
    items.push({
      label: `cached GetMonsterGlobals 100 / HTTP GET, Accept-Encoding ${c.encoding}: rps / plain rps`,
      value: c.vsPlain,
      note: c.contentEncoding ? `${kb(plain.bodyBytes)} -> ${kb(c.bodyBytes)} (${c.contentEncoding})` : 'the service answered uncompressed',
    });
  }
  return items;
}

export function compressionLine(c: CompressionResult): string {
  const asked = c.encoding === 'identity' ? 'no Accept-Encoding' : `Accept-Encoding ${c.encoding}`;
  if (!c.rounds.length && c.encoding === 'identity') return `${asked}: ${kb(c.bodyBytes)} (not measured again: nothing compressed to compare it with)`;
  if (!c.rounds.length) return `${asked}: answered uncompressed (no Content-Encoding), ${kb(c.bodyBytes)}: not measured`;
  return `${asked}: ${c.contentEncoding ? `Content-Encoding ${c.contentEncoding}, ` : ''}body ${kb(c.bodyBytes)}, ${kb(c.wireBytes ?? 0)} per response on the wire, `
    + `${c.medianRps?.toFixed(0)} rps, ${c.medianSrvMsPerReq?.toFixed(2)} srv ms/req${c.vsPlain ? `, ${c.vsPlain.median.toFixed(3)}x the plain rps` : ''}`;
}
