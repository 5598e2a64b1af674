import fs from 'node:fs';
import path from 'node:path';
import { escapeAttr } from '../xml/escape';
import { ENDPOINTS, WSDL_DIR, type Endpoint } from './endpoints';
import { soapActionFor } from './soap/action';

const DEFAULT_NS = 'SVAPI';

/**
 * The WSDL files on disk use the default namespace and a placeholder address; what is served
 * (and what node-soap loads) carries the configured namespace and the caller's base URL.
 */
export class WsdlDocuments {
  private readonly files = new Map<string, string>();

  constructor(private readonly namespace: string) {
    for (const e of ENDPOINTS) {
      this.files.set(e.name, withNamespace(fs.readFileSync(path.join(WSDL_DIR, e.wsdlFile), 'utf8'), namespace));
    }
  }

  /** The WSDL of an endpoint with every address absolute under `base`. */
  wsdl(endpoint: Endpoint, base: string): string {
    return this.files.get(endpoint.name)!.replace(/(<(?:soap|soap12|http):address\s+location=")[^"]*(")/g, (_m, a, b) => `${a}${escapeAttr(base + endpoint.path)}${b}`);
  }
}

/** Every attribute value that is the default namespace gets `ns`; every action under it, `ns`'s action. */
export function withNamespace(xml: string, ns: string): string {
  if (ns === DEFAULT_NS) return xml;
  return xml.replace(new RegExp(`="${DEFAULT_NS}(?:/([^"]*))?"`, 'g'), (_m, op: string | undefined) => `="${escapeAttr(op === undefined ? ns : soapActionFor(ns, op))}"`);
}
