// Dependencies are used through their public API only: no path inside a package, no member named
// with a leading underscore. The lint rules in eslint.config.js say so for every file linted, the
// service (src/) and what measures and tests it (bench/, test/): `npx eslint .` in CI. This checks
// that they still catch each form in each of those folders, and scans the sources and the built code.

import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '..');

// eslint.config.js given as loaded here: ESLint's own loading of it is a dynamic import, which Jest's module system does not run.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const CONFIG = require('../eslint.config.js');

/** A file of each folder the rules cover (the code is linted as if it were there). */
const FIXTURES = ['src/db/fixture.ts', 'bench/lib/fixture.ts', 'test/fixture.test.ts'];

async function lintErrors(code: string, file: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: CONFIG });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  // The other rules (a require() is refused anyway) are not what this checks.
  return result.messages.filter((m) => m.severity === 2 && /^no-restricted-/.test(m.ruleId ?? ''))
    .map((m) => `${m.ruleId}: ${m.message}`);
}

const DEEP = /a path inside a dependency is not its public API/;
const PRIVATE = /a member named with a leading underscore is private to its library/;

test.each(FIXTURES)('the lint rules refuse each form of a deep import and of a private member in %s', async (file) => {
  const cases: [string, RegExp][] = [
    ["import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';\nexport type T = XMLBuilder;", DEEP],
    ["import { prepareValue } from 'pg/lib/utils';\nexport const p = prepareValue;", DEEP],
    ["export { x } from '@scope/pkg/dist/x';", DEEP],
    ["export const utils = require('pg/lib/utils');", DEEP],
    ["export const later = import('knex/lib/execution/runner');", DEEP],
    ["export type R = import('prom-client/lib/histogram').Histogram;", DEEP],
    // What bench/lib/measure.ts did until issue 21: a module autocannon does not export, patched.
    ["const queue = require('autocannon/lib/pipelinedRequestsQueue');\nexport const q = queue;", DEEP],
    ['export const busy = (c: { _queryQueue: unknown[] }) => c._queryQueue.length > 0;', PRIVATE],
    ["export const busy = (c: Record<string, unknown>) => c['_activeQuery'];", PRIVATE],
  ];
  for (const [code, expected] of cases) {
    const errors = await lintErrors(code, file);
    expect({ code, errors }).toEqual({ code, errors: [expect.stringMatching(expected)] });
  }
}, 60_000);

test.each(FIXTURES)('the lint rules let public imports, documented subpaths and our own modules through in %s', async (file) => {
  expect(await lintErrors([
    "import { Pool } from 'pg';",
    "import { from as copyFrom } from 'pg-copy-streams';",
    "import { readRows } from './queries/statements';",
    "import { ENDPOINTS } from '../bindings/endpoints';",
    "export const trgm = require('@electric-sql/pglite/contrib/pg_trgm');",
    "export const loader = require.resolve('tsx/cjs');",
    'export const figures = (p: Pool) => [p.totalCount, p.idleCount, p.waitingCount, copyFrom, readRows, ENDPOINTS];',
  ].join('\n'), file)).toEqual([]);
}, 60_000);

const DEEP_IMPORT = /(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*)["']((?:@[^/'"]+\/)?[^./'"][^/'"]*\/(?:lib|dist|src|build|internal)(?:\/[^'"]*)?)["']/g;
const PRIVATE_MEMBER = /(?:\.|\[\s*["'])_[A-Za-z]\w*/g;

/** What `dir` holds against the rules; `keep` says which files count (by their path under `dir`). */
function findings(dir: string, ext: RegExp, keep: (relative: string) => boolean = () => true): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !ext.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (!keep(path.relative(dir, file))) continue;
    const text = fs.readFileSync(file, 'utf8');
    const where = path.relative(ROOT, file);
    for (const m of text.matchAll(DEEP_IMPORT)) found.push(`${where}: imports ${m[1]}`);
    for (const m of text.matchAll(PRIVATE_MEMBER)) found.push(`${where}: reads ${m[0]}`);
  }
  return found;
}

test('no source file under src/ imports a path inside a dependency or reads an underscore member', () => {
  expect(findings(path.join(ROOT, 'src'), /\.ts$/)).toEqual([]);
});

test('neither does a file of the benchmark, the tests or the scripts', () => {
  // This file, whose cases above are such imports as text, is the one left out.
  const self = path.relative(path.join(ROOT, 'test'), __filename);
  expect([
    ...findings(path.join(ROOT, 'bench'), /\.[jt]s$/),
    ...findings(path.join(ROOT, 'test'), /\.[jt]s$/, (file) => file !== self),
    ...findings(path.join(ROOT, 'scripts'), /\.[jt]s$/),
    ...findings(path.join(ROOT, 'bin'), /\.[jt]s$/),
  ]).toEqual([]);
});

test('neither does the built code (dist/src, what bin/svapi.js runs)', () => {
  const dist = path.join(ROOT, 'dist/src');
  // `npm run build` makes it; the spawned-service tests need it as well.
  expect(fs.existsSync(dist)).toBe(true);
  // Only what src/ still has: the compiler leaves the output of a deleted source file behind.
  const current = (js: string) => fs.existsSync(path.join(ROOT, 'src', js.replace(/\.js$/, '.ts')));
  expect(findings(dist, /\.js$/, current)).toEqual([]);
});
