// The folders are concerns and imports run only down (docs/architecture.md, "What each folder
// owns"): no import cycle, and no import from a unit to one in the same or a higher layer. A unit
// is a folder of src/ (`src/http/`), a file directly in src/ (`src/app.ts`), or seeds/ and migrations/.

import path from 'node:path';
import { cycles, importGraph } from './support/import-graph';

/** Top to bottom: a unit imports only from itself and from the layers below its own. */
const LAYERS: readonly (readonly string[])[] = [
  ['src/cli.ts', 'src/knexfile.ts', 'src/build-embedded-template.ts'], // programs
  ['src/cluster.ts'],
  ['src/server.ts'],
  ['src/app.ts', 'src/compare/', 'src/generate/', 'src/startup-lines.ts'], // the service as one app; the other commands
  ['src/monitoring.ts'], // /healthz, /readyz, /metrics
  ['src/metrics.ts', 'src/http-server.ts', 'src/listen-handles.ts', 'src/placement/'],
  ['src/metrics-cluster.ts', 'src/metrics-histogram.ts'],
  ['seeds/'], // the sample data, through the loader
  ['src/docs/'], // help pages, DISCO, JSON page: read the registry
  ['src/bindings/'], // the binding modules and their registry
  ['src/pipeline/'], // the binding interface, the pipeline and its steps, the overload guards
  ['src/auth/', 'src/cache/'],
  ['src/http/'], // Node HTTP plumbing: router, request id, access log, bodies, answers
  ['src/operations/', 'src/load/'],
  ['src/db/', 'src/wsdl/'], // the database; the served WSDL documents and the endpoints
  ['migrations/'],
  ['src/xml/'],
  ['src/xsd/'], // XML Schema values, shared by the loader and parameter decoding
  ['src/generated/', 'src/types/'],
  ['src/errors.ts', 'src/config.ts'],
  ['src/log.ts', 'src/package-root.ts', 'src/cpu-quota.ts'],
];

const ROOT = path.join(__dirname, '..');

function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'src') return `${parts[0]}/`;
  return parts.length > 2 ? `src/${parts[1]}/` : file;
}

const rank = new Map(LAYERS.flatMap((units, i) => units.map((u) => [u, i] as const)));

/** Every import that runs against the layers: `from -> to (unit layer -> unit layer)`. */
export function upwardImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const wrong: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const [a, b] = [unitOf(from), unitOf(to)];
      if (a === b) continue;
      const [ra, rb] = [rank.get(a), rank.get(b)];
      if (ra === undefined || rb === undefined || rb <= ra) wrong.push(`${from} -> ${to} (${a} layer ${ra ?? '?'} -> ${b} layer ${rb ?? '?'})`);
    }
  }
  return wrong;
}

const graph = importGraph(ROOT, ['src', 'seeds', 'migrations']);

test('every file of src/, seeds/ and migrations/ is in a layer', () => {
  expect([...graph.keys()].map(unitOf).filter((u) => !rank.has(u))).toEqual([]);
});

test('no import cycle', () => {
  expect(cycles(graph)).toEqual([]);
});

test('imports run only down the layers', () => {
  expect(upwardImports(graph)).toEqual([]);
});

test('the check sees an upward import and a cycle', () => {
  const broken = new Map(graph);
  broken.set('src/http/router.ts', [...graph.get('src/http/router.ts')!, 'src/pipeline/handle.ts']);
  expect(upwardImports(broken)).toEqual([expect.stringContaining('src/http/router.ts -> src/pipeline/handle.ts')]);
  expect(cycles(broken).length).toBeGreaterThan(0);
});
