import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Debian's xmllint (libxml2-utils) when it is installed: CI installs it. */
const systemXmllint = spawnSync('xmllint', ['--version'], { encoding: 'utf8' }).error === undefined;
const WASM_CLI = path.join(__dirname, 'xmllint-wasm-cli.js');

/**
 * `xmllint --noout --nonet --schema <xsd> <file>...`: the system's xmllint, or the same libxml2
 * built to WebAssembly (npm xmllint-wasm, run in a child process so callers stay synchronous), so
 * the suite needs nothing but Node. Status 0 means every file is valid; the report is on stderr,
 * each problem starting with its file's path.
 */
export function xmllintSchema(schemaFile: string, ...files: string[]): SpawnSyncReturns<string> {
  return systemXmllint
    ? spawnSync('xmllint', ['--noout', '--nonet', '--schema', schemaFile, ...files], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    : spawnSync(process.execPath, [WASM_CLI, '--schema', schemaFile, ...files], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

interface Pending {
  schemaFile: string;
  file: string;
  xml: string;
  what: string;
}

let written = 0;
let pending: Pending[] = [];

/**
 * Queues `xml` for validation against `schemaFile`; `what` opens the message if it is not valid.
 * The document is written next to the schema. Nothing is checked until `checkSchemas()`, which
 * runs one xmllint per schema over everything queued: a test file calls it in `afterEach`, so a
 * test that queued an invalid document fails. (Hundreds of xmllint runs, one per document, were
 * most of the SOAP test files' time.)
 */
export function assertSchemaValid(schemaFile: string, xml: string, what: string): void {
  const file = path.join(path.dirname(schemaFile), `doc-${++written}.xml`);
  fs.writeFileSync(file, xml);
  pending.push({ schemaFile, file, xml, what });
}

/** Validates everything `assertSchemaValid` queued; throws with xmllint's report for each document that is not valid. */
export function checkSchemas(): void {
  const queued = pending;
  pending = [];
  const failures: string[] = [];
  for (const schemaFile of new Set(queued.map((p) => p.schemaFile))) {
    const docs = queued.filter((p) => p.schemaFile === schemaFile);
    const r = xmllintSchema(schemaFile, ...docs.map((d) => d.file));
    if (r.error) throw new Error(`xmllint could not run: ${r.error.message}`);
    const report = r.stderr.split('\n');
    for (const d of docs) {
      const own = report.filter((line) => line.startsWith(d.file) || line.startsWith(path.basename(d.file)));
      const valid = own.some((line) => line.endsWith(' validates'));
      if (!valid) failures.push(`${d.what}:\n${own.join('\n')}\n${d.xml.slice(0, 2000)}`);
    }
    // A failure xmllint reports on no file (the schema itself): no document may pass unseen.
    if (r.status !== 0 && failures.length === 0) throw new Error(`xmllint exited with ${r.status}:\n${r.stderr.slice(0, 4000)}`);
  }
  if (failures.length) throw new Error(failures.join('\n\n'));
}
