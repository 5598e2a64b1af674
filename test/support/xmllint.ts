import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
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
