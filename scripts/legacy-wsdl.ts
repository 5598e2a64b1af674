// The legacy-shaped WSDLs (test/fixtures/legacy-wsdl) for another namespace and address, as the
// legacy ASMX service would have published them had it been set up that way.
//
//   node bin/run-ts.js scripts/legacy-wsdl.ts <namespace> <base_url> <out_dir>
//
// writes <out_dir>/{weapons,item,hunting,auction}.wsdl.

import fs from 'node:fs';
import path from 'node:path';
import { soapActionFor } from '../src/xml/soap-action';
import { escapeAttr } from '../src/xml/escape';

export const LEGACY_WSDL_DIR = path.resolve(__dirname, '../test/fixtures/legacy-wsdl');
export const LEGACY_WSDL_NAMES = ['weapons', 'item', 'hunting', 'auction'] as const;
export type LegacyWsdlName = (typeof LEGACY_WSDL_NAMES)[number];

/** The namespace and host the fixture files are written with. */
export const FIXTURE_NAMESPACE = 'http://tempuri.org/';
const FIXTURE_HOST = 'http://legacy.example';
const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const ACTION = new RegExp(`soapAction="${quote(FIXTURE_NAMESPACE)}(\\w+)"`, 'g');
const NAMESPACE = new RegExp(`="${quote(FIXTURE_NAMESPACE)}"`, 'g');
const ADDRESS = new RegExp(`(<(?:soap|soap12|http):address location=")${quote(FIXTURE_HOST)}(/[^"]*")`, 'g');

/** The fixture `name` with namespace `namespace` (actions by ASMX's rule) and addresses under `baseUrl`. */
export function legacyWsdl(name: LegacyWsdlName, namespace: string, baseUrl: string): string {
  const text = fs.readFileSync(path.join(LEGACY_WSDL_DIR, `${name}.wsdl`), 'utf8');
  const base = baseUrl.replace(/\/+$/, '');
  const counts = { action: 0, namespace: 0, address: 0 };
  const out = text
    .replace(ACTION, (_m, op: string) => {
      counts.action++;
      return `soapAction="${escapeAttr(soapActionFor(namespace, op))}"`;
    })
    .replace(NAMESPACE, () => {
      counts.namespace++;
      return `="${escapeAttr(namespace)}"`;
    })
    .replace(ADDRESS, (_m, open: string, rest: string) => {
      counts.address++;
      return `${open}${escapeAttr(base)}${rest}`;
    });
  // xmlns:tns, the two targetNamespace; both SOAP bindings name each action; four ports.
  if (counts.namespace !== 3 || counts.action === 0 || counts.action % 2 !== 0 || counts.address !== 4) {
    throw new Error(`${name}.wsdl: not the expected fixture shape (${JSON.stringify(counts)})`);
  }
  return out;
}

function main(argv: string[]): number {
  if (argv.length !== 3) {
    console.error('usage: legacy-wsdl.ts <namespace> <base_url> <out_dir>');
    return 2;
  }
  const [namespace, baseUrl, outDir] = argv;
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of LEGACY_WSDL_NAMES) fs.writeFileSync(path.join(outDir, `${name}.wsdl`), legacyWsdl(name, namespace, baseUrl));
  return 0;
}

if (require.main === module || path.resolve(process.argv[1] ?? '') === __filename) {
  process.exitCode = main(process.argv.slice(2));
}
