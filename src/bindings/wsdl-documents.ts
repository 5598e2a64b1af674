import fs from 'node:fs';
import path from 'node:path';
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { escapeAttr } from '../xml/escape';
import { XML_DECL } from '../xml/vocabulary';
import { ENDPOINTS, WSDL_DIR, type Endpoint } from './endpoints';
import { soapActionFor } from './soap/action';

/** The namespace the WSDL files on disk use (scripts/check-wsdl.ts holds them to it). */
const PLACEHOLDER_NS = 'SVAPI';
const SOAP_BINDING_NS = ['http://schemas.xmlsoap.org/wsdl/soap/', 'http://schemas.xmlsoap.org/wsdl/soap12/'];
const ADDRESS_NS = [...SOAP_BINDING_NS, 'http://schemas.xmlsoap.org/wsdl/http/'];
/** What the addresses hold in a serialized WSDL until a request's base URL takes its place. */
const ADDRESS_MARKER = 'urn:svapi:address-of-this-request';

/**
 * The WSDL files on disk use the placeholder namespace and address; what is served (and what
 * node-soap loads) carries the configured namespace and the caller's base URL. Each file is
 * serialized once for the namespace; a request only puts its base URL into the addresses, a
 * string join rather than a serialization per base (any Host header makes a new base URL).
 */
export class WsdlDocuments {
  /** Each endpoint's WSDL, split where its addresses go. */
  private readonly parts = new Map<string, string[]>();

  constructor(namespace: string) {
    for (const e of ENDPOINTS) this.parts.set(e.name, WsdlFile.of(e.wsdlFile).serialize(namespace).split(ADDRESS_MARKER));
  }

  /** The WSDL of an endpoint with every address absolute under `base`. */
  wsdl(endpoint: Endpoint, base: string): string {
    return this.parts.get(endpoint.name)!.join(escapeAttr(base + endpoint.path));
  }
}

/**
 * One WSDL file, parsed once per process, with the attributes a namespace sets: every namespace
 * value that is the placeholder (targetNamespace, xmlns:tns, the schema's targetNamespace), every
 * soapAction (ASMX's action of its operation) and every address (the marker). Nothing else
 * changes: whitespace, attribute order and quoting are kept, so the default namespace gives the
 * file back byte for byte.
 */
class WsdlFile {
  private static readonly parsed = new Map<string, WsdlFile>();

  static of(file: string): WsdlFile {
    let f = WsdlFile.parsed.get(file);
    if (!f) WsdlFile.parsed.set(file, (f = new WsdlFile(fs.readFileSync(path.join(WSDL_DIR, file), 'utf8'))));
    return f;
  }

  private readonly doc: XMLBuilder;
  private readonly trailing: string;
  private readonly namespaces: Attr[] = [];
  private readonly actions: { attr: Attr; operation: string }[] = [];
  private readonly addresses: Attr[] = [];

  private constructor(text: string) {
    this.doc = create({ skipWhitespaceOnlyText: false }, text);
    this.trailing = /\s*$/.exec(text)![0];
    this.doc.root().each((node) => {
      const el = node.node as unknown as Element;
      if (el.nodeType !== el.ELEMENT_NODE) return;
      for (const a of Array.from(el.attributes)) if (a.value === PLACEHOLDER_NS) this.namespaces.push(a);
      const action = el.getAttributeNode('soapAction');
      if (action && el.localName === 'operation' && SOAP_BINDING_NS.includes(el.namespaceURI!)) {
        this.actions.push({ attr: action, operation: (el.parentNode as Element).getAttribute('name')! });
      }
      const location = el.getAttributeNode('location');
      if (location && el.localName === 'address' && ADDRESS_NS.includes(el.namespaceURI!)) this.addresses.push(location);
    }, true, true);
  }

  serialize(ns: string): string {
    // Values go in escaped: xmlbuilder2's writer leaves what already is a character or entity
    // reference as it is (and would write an `&name;` in a value unescaped, a tab or newline raw).
    const namespace = escapeAttr(ns);
    for (const a of this.namespaces) a.value = namespace;
    for (const { attr, operation } of this.actions) attr.value = escapeAttr(soapActionFor(ns, operation));
    for (const a of this.addresses) a.value = ADDRESS_MARKER;
    return `${XML_DECL}\n${this.doc.end({ headless: true, spaceBeforeSlash: true })}${this.trailing}`;
  }
}
