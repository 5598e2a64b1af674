/**
 * The final summary: every ratio of issue 18 with its target where it sets one (issue 15's
 * uncached target, 0.8x pgbench, is withdrawn: the uncached path is measured against the Node
 * floor), and the other ratios for information. A ratio counts only rounds in which every answer
 * was 200 and right.
 */
import type { CompressionResult } from './compression';
import type { Ratios, SummaryItem } from './report';
import type { UncachedResult } from './uncached';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function summaryItems(r: Ratios, uncached: UncachedResult[], compression: CompressionResult[]): SummaryItem[] {
  const items: SummaryItem[] = [];
  for (const u of uncached) {
    if (u.vsFloor !== undefined) {
      const f = u.floorMedians!;
      items.push({
        label: `uncached ${u.name}: rps / Node floor rps`,
        value: u.vsFloor,
        target: u.floorTarget,
        failedRounds: u.failedRounds,
        note: `srv ${u.medians.srvMsPerReq.toFixed(2)} ms/req, floor ${f.srvMsPerReq.toFixed(2)} ms/req; ${u.medians.rps.toFixed(0)} rps vs ${f.rps.toFixed(0)} rps`,
      }, {
        label: `uncached ${u.name}: Node floor rps / pgbench tps`,
        value: u.floorVsPgbench ?? null,
        failedRounds: u.failedRounds,
        note: `floor pg ${f.pgMsPerReq?.toFixed(2) ?? '-'} ms/req; pgbench pg ${u.medians.pgbenchPgMsPerTx.toFixed(2)} ms/tx`,
      });
    }
    items.push({
      label: `uncached ${u.name}: rps / pgbench tps`,
      value: u.ratio,
      failedRounds: u.failedRounds,
      note: `srv ${u.medians.srvMsPerReq.toFixed(2)} ms/req, pg ${u.medians.pgMsPerReq?.toFixed(2) ?? '-'} ms/req; `
        + `${u.medians.rps.toFixed(0)} rps vs ${u.medians.pgbenchTps.toFixed(0)} tps (pg ${u.medians.pgbenchPgMsPerTx.toFixed(2)} ms/tx)`,
    });
  }
  if (r.rounds.length) {
    const passed = r.rounds.filter((x) => !x.failed.length);
    const ceiling = passed.length ? passed.map((x) => x.rps.ceiling).sort((a, b) => a - b)[Math.floor((passed.length - 1) / 2)].toFixed(0) : '-';
    const failedRounds = r.failedRounds;
    items.push(
      { label: 'cached GetMonster / HTTP GET rps / raw http ceiling rps', value: r.httpGetVsCeiling, target: 0.6, failedRounds, note: `ceiling ~${ceiling} rps; by CPU/req ${r.cpuHttpGetVsCeiling?.median.toFixed(3) ?? '-'}` },
      { label: 'cached GetMonster / SOAP 1.1 rps / raw http ceiling rps', value: r.soap11VsCeiling, target: 0.5, failedRounds, note: `by CPU/req ${r.cpuSoap11VsCeiling?.median.toFixed(3) ?? '-'}` },
      { label: 'cached GetMonster / HTTP GET p99 / raw http ceiling p99', value: r.p99HttpGetVsCeiling, atMost: 1.5, failedRounds },
      { label: 'raw http ceiling as primary + workers: p99 / ceiling p99', value: r.p99LayoutVsCeiling, failedRounds, note: 'the layout alone, no service work' },
      { label: 'cached GetMonster / HTTP GET p99 / that layout\'s p99', value: r.p99HttpGetVsLayout, failedRounds },
      { label: 'cached GetMonster / SOAP 1.1 rps / bare node-soap rps', value: r.soap11VsNodeSoap, failedRounds, note: `by CPU/req ${r.cpuSoap11VsNodeSoap?.median.toFixed(3) ?? '-'}` },
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
