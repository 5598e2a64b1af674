import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Debian's xmllint (libxml2-utils) when it is installed: CI installs it. */
const systemXmllint = spawnSync('xmllint', ['--version'], { encoding: 'utf8' }).error === undefined;
const WASM_CLI = path.join(__dirname, 'xmllint-wasm-cli.js');

/**
 * `xmllint --noout --nonet --schema <xsd> <file>`: the system's xmllint, or the same libxml2 built
 * to WebAssembly (npm xmllint-wasm, run in a child process so callers stay synchronous), so the
 * suite needs nothing but Node. Status 0 means valid; the report is on stderr.
 */
export function xmllintSchema(schemaFile: string, file: string): SpawnSyncReturns<string> {
  return systemXmllint
    ? spawnSync('xmllint', ['--noout', '--nonet', '--schema', schemaFile, file], { encoding: 'utf8' })
    : spawnSync(process.execPath, [WASM_CLI, '--schema', schemaFile, file], { encoding: 'utf8' });
}

let written = 0;

/**
 * Throws with xmllint's report unless `xml` is valid against `schemaFile`; `what` opens the
 * message. The document is written next to the schema for xmllint to read.
 */
export function assertSchemaValid(schemaFile: string, xml: string, what: string): void {
  const file = path.join(path.dirname(schemaFile), `doc-${++written}.xml`);
  fs.writeFileSync(file, xml);
  const r = xmllintSchema(schemaFile, file);
  if (r.error) throw new Error(`xmllint could not run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${what}:\n${r.stderr}\n${xml.slice(0, 2000)}`);
}
