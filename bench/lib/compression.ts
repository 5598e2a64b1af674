/**
 * One answer with and without compression: the same request plain, then with Accept-Encoding gzip
 * and br, back to back in each round. A compressed answer must inflate to the plain one (checked
 * once, then every response against those bytes, or inflated when its bytes differ). When the
 * service answers an Accept-Encoding request uncompressed, that is reported, not measured.
 */
import type { Request } from './cases';
import { ENCODINGS, inflatesTo, rawFetch, type Encoding } from './encoding';
import { measure, type Measurement, type MeasureOptions, type Sample } from './measure';
import { median, spread, type Spread } from './report';

/** The case measured with and without compression: the 75 KB answer. */
export const COMPRESSED_CASE = 'GetMonsterGlobals 100 / HTTP GET';

export interface CompressionResult {
  /** What the service sent back: its Content-Encoding (null: none, the answer went out plain). */
  encoding: 'identity' | Encoding;
  contentEncoding: string | null;
  /** Body bytes of the answer as sent, and bytes per response on the wire (headers included, median of rounds). */
  bodyBytes: number;
  wireBytes: number | null;
  rounds: Measurement[];
  /** rps over the plain request's rps in the same round. */
  vsPlain: Spread | null;
  medianRps: number | null;
  medianSrvMsPerReq: number | null;
}

export async function measureCompression(
  origin: string,
  request: Request,
  plain: Buffer,
  pid: number,
  opts: MeasureOptions,
  rounds: number,
  progress: (s: string) => void,
  log: (s: string) => void,
): Promise<CompressionResult[]> {
  const variants: { encoding: CompressionResult['encoding']; sample?: Sample; contentEncoding: string | null; bodyBytes: number }[] = [
    { encoding: 'identity', sample: { request, expected: plain }, contentEncoding: null, bodyBytes: plain.length },
  ];
  for (const encoding of ENCODINGS) {
    const asked: Request = { ...request, headers: { ...request.headers, 'accept-encoding': encoding } };
    const res = await rawFetch(origin, asked);
    if (res.status !== 200) throw new Error(`Accept-Encoding ${encoding}: status ${res.status}`);
    const coding = res.headers['content-encoding'];
    if (!coding || coding === 'identity') {
      if (!res.body.equals(plain)) throw new Error(`Accept-Encoding ${encoding}: a different uncompressed answer`);
      log(`  Accept-Encoding ${encoding}: the service answered uncompressed (no Content-Encoding); not measured`);
      variants.push({ encoding, contentEncoding: null, bodyBytes: res.body.length });
      continue;
    }
    if (!inflatesTo(plain, coding)(res.body)) throw new Error(`Accept-Encoding ${encoding}: the ${coding} answer does not inflate to the plain one`);
    variants.push({ encoding, sample: { request: asked, expected: res.body, inflatesTo: { contentEncoding: coding, plain } }, contentEncoding: coding, bodyBytes: res.body.length });
  }
  const measured = variants.map(() => [] as Measurement[]);
  // Nothing compressed: nothing to compare the plain answer with (the cases measured it already).
  const compared = variants.some((v) => v.encoding !== 'identity' && v.sample);
  for (let r = 1; compared && r <= rounds; r++) {
    for (const [i, v] of variants.entries()) {
      if (!v.sample) continue;
      progress(`[compression round ${r}/${rounds}] Accept-Encoding ${v.encoding} ... `);
      const m = await measure({ origin, samples: [v.sample] }, pid, opts);
      measured[i].push(m);
      log(`${m.rps.toFixed(0)} rps, ${(m.wireBytesPerResponse / 1024).toFixed(1)} KB per response on the wire, ${m.cpuMsPerRequest.server.toFixed(2)} srv ms/req${m.flagged ? '  FLAGGED' : ''}`);
    }
  }
  return variants.map((v, i) => {
    const ms = measured[i];
    const med = (f: (m: Measurement) => number) => (ms.length ? median(ms.map(f)) : null);
    return {
      encoding: v.encoding,
      contentEncoding: v.contentEncoding,
      bodyBytes: v.bodyBytes,
      wireBytes: med((m) => m.wireBytesPerResponse),
      rounds: ms,
      vsPlain: ms.length && i > 0 ? spread(ms.map((m, r) => Math.round((m.rps / measured[0][r].rps) * 1000) / 1000)) : null,
      medianRps: med((m) => m.rps),
      medianSrvMsPerReq: med((m) => m.cpuMsPerRequest.server),
    };
  });
}
