// test/builtin-prototypes.test.ts runs, under `node --allow-natives-syntax`,
//   node bin/run-ts.js test/support/builtin-prototypes-run.ts
// which loads every module of src/ (and so every dependency the service can load), then prints
// one JSON line: for each built-in prototype, whether V8 still keeps its properties fast.
import path from 'node:path';
import { tsFiles } from './import-graph';

// Entry scripts that act when loaded.
const ENTRIES = new Set(['cli.ts', 'build-embedded-template.ts']);
const modules = tsFiles(path.join(__dirname, '..', '..', 'src')).filter((file) => !ENTRIES.has(path.basename(file)));

// Loaded by path at run time, through tsx's CommonJS hook (an `import()` goes to Node's ESM
// loader, which tsx/cjs does not hook).
// eslint-disable-next-line @typescript-eslint/no-require-imports
for (const file of modules) require(file);
// V8's own test of an object's property storage: only parsed under --allow-natives-syntax.
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
const prototypes = { String, Array, Object, Function, RegExp, Number, Promise, Map, Set, Uint8Array, Error };
process.stdout.write(`${JSON.stringify(Object.fromEntries(Object.entries(prototypes).map(([name, ctor]) => [name, hasFastProperties(ctor.prototype)])))}\n`);
