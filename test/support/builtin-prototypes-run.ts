// test/builtin-prototypes.test.ts runs, under `node --allow-natives-syntax`,
//   node bin/run-ts.js test/support/builtin-prototypes-run.ts
// which loads every module of src/ (and so every dependency the service can load), then prints
// one JSON line: for each built-in prototype, whether V8 still keeps its properties fast.
import fs from 'node:fs';
import path from 'node:path';

// Entry scripts that act when loaded.
const ENTRIES = new Set(['cli.ts', 'build-embedded-template.ts']);

function modules(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return modules(file);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !ENTRIES.has(e.name) ? [file] : [];
  });
}

// Loaded by path at run time, through tsx's CommonJS hook (an `import()` goes to Node's ESM
// loader, which tsx/cjs does not hook).
// eslint-disable-next-line @typescript-eslint/no-require-imports
for (const file of modules(path.join(__dirname, '..', '..', 'src'))) require(file);
// V8's own test of an object's property storage: only parsed under --allow-natives-syntax.
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
const prototypes = { String, Array, Object, Function, RegExp, Number, Promise, Map, Set, Uint8Array, Error };
process.stdout.write(`${JSON.stringify(Object.fromEntries(Object.entries(prototypes).map(([name, ctor]) => [name, hasFastProperties(ctor.prototype)])))}\n`);
