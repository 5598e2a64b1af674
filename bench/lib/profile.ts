import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame belongs: an npm package, a folder of ours, Node itself, or V8 (GC, idle). */
function bucket(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').split('/').slice(0, 2).join('/');
  const ours = /\/(src\/[^/]+|bench|seeds|migrations)\//.exec(url);
  return ours ? ours[1] : url;
}

/**
 * Self time of the V8 .cpuprofiles in `dir` (a cluster writes one per process: the primary and
 * each worker, added up here) by package/folder and by function, as text.
 */
export function summarizeProfile(dir: string, top = 15): { file: string; text: string } | undefined {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : [];
  if (!files.length) return undefined;
  const byBucket = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const name of files) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const dt = profile.timeDeltas[i] ?? 0;
      const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
      if (functionName === '(idle)') return;
      total += dt;
      const b = bucket(url, functionName);
      byBucket.set(b, (byBucket.get(b) ?? 0) + dt);
      const f = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')}:${lineNumber + 1}`;
      byFunction.set(f, (byFunction.get(f) ?? 0) + dt);
    });
  }
  const pct = (t: number) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;
  const list = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, t]) => `  ${pct(t)}  ${k}`);
  return {
    file: `${path.relative(process.cwd(), dir)}/ (${files.length} process${files.length > 1 ? 'es' : ''})`,
    text: [`busy CPU ${(total / 1e6).toFixed(1)} s; self time by package / folder:`, ...list(byBucket), 'by function:', ...list(byFunction)].join('\n'),
  };
}
