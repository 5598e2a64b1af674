// The project's own import graph, read with the TypeScript compiler's pre-processor (every
// `import`, `export ... from`, `import()` and `require()`, type-only ones included): the layer
// test (test/import-layers.test.ts) checks its cycles and directions.

import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Each TypeScript file under `dirs` (paths relative to `root`, with `/`) and the project files it imports. */
export function importGraph(root: string, dirs: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = dirs.flatMap((d) => tsFiles(path.join(root, d)));
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .filter((i) => i.fileName.startsWith('.'))
      .map((i) => resolve(path.resolve(path.dirname(file), i.fileName)))
      .filter((t): t is string => t !== undefined)
      .map((t) => path.relative(root, t).split(path.sep).join('/'));
    graph.set(path.relative(root, file).split(path.sep).join('/'), [...new Set(targets)]);
  }
  return graph;
}

/** The TypeScript files under `dir` (no declaration files), sorted. */
export function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

function resolve(base: string): string | undefined {
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** The import cycles of `graph`: each strongly connected set of more than one file, or a file importing itself (Tarjan). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(set.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}
