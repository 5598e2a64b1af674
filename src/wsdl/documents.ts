import fs from 'node:fs';
import path from 'node:path';
import { create } from 'xmlbuilder2';
import { escapeAttr } from '../xml/escape';
import { XML_DECL } from '../xml/vocabulary';
import { ENDPOINTS, WSDL_DIR, type Endpoint } from './endpoints';
import { soapActionFor } from '../xml/soap-action';

/** xmlbuilder2's document, as its public entry point's `create` returns it. */
type XMLBuilder = ReturnType<typeof create>;

/** The namespace the WSDL files on disk use (scripts/check-wsdl.ts holds them to it). */
const PLACEHOLDER_NS = 'SVAPI';
const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/';
const XS_NS = 'http://www.w3.org/2001/XMLSchema';
const SOAP_BINDING_NS = ['http://schemas.xmlsoap.org/wsdl/soap/', 'http://schemas.xmlsoap.org/wsdl/soap12/'];
const ADDRESS_NS = [...SOAP_BINDING_NS, 'http://schemas.xmlsoap.org/wsdl/http/'];
/** What the addresses hold in a serialized WSDL until a request's base URL takes its place. */
const ADDRESS_MARKER = 'urn:svapi:address-of-this-request';

/**
 * The two forms of an endpoint's WSDL. `legacy` (`<path>?wsdl`) is what ASMX published: no
 * wsdl:fault, no fault message, no ServiceError element or type, so regenerated stubs have the
 * legacy API (wsimport adds a checked exception per declared fault). `faults`
 * (`<path>?wsdl=faults`) is the file as it is, ServiceError declared as each SOAP 1.1
 * operation's fault, for clients that want it typed. Faults carry the same detail either way.
 */
export type WsdlForm = 'legacy' | 'faults';
export const WSDL_FORMS: readonly WsdlForm[] = ['legacy', 'faults'];

/**
 * The WSDL files on disk use the placeholder namespace and address; what is served (and what
 * node-soap loads) carries the configured namespace and the caller's base URL. Each file is
 * serialized once per form for the namespace; a request only puts its base URL into the
 * addresses, a string join rather than a serialization per base (any Host header makes a new
 * base URL).
 */
export class WsdlDocuments {
  /** Each endpoint's WSDL in each form, split where its addresses go. */
  private readonly parts = new Map<string, string[]>();

  constructor(namespace: string) {
    for (const e of ENDPOINTS) {
      for (const form of WSDL_FORMS) this.parts.set(`${form} ${e.name}`, WsdlFile.of(e.wsdlFile, form).serialize(namespace).split(ADDRESS_MARKER));
    }
  }

  /** The WSDL of an endpoint with every address absolute under `base`. */
  wsdl(endpoint: Endpoint, base: string, form: WsdlForm = 'legacy'): string {
    return this.parts.get(`${form} ${endpoint.name}`)!.join(escapeAttr(base + endpoint.path));
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

  static of(file: string, form: WsdlForm): WsdlFile {
    const key = `${form} ${file}`;
    let f = WsdlFile.parsed.get(key);
    if (!f) WsdlFile.parsed.set(key, (f = new WsdlFile(fs.readFileSync(path.join(WSDL_DIR, file), 'utf8'), form)));
    return f;
  }

  private readonly doc: XMLBuilder;
  private readonly trailing: string;
  private readonly namespaces: Attr[] = [];
  private readonly actions: { attr: Attr; operation: string }[] = [];
  private readonly addresses: Attr[] = [];

  private constructor(text: string, form: WsdlForm) {
    this.doc = create({ skipWhitespaceOnlyText: false }, text);
    this.trailing = /\s*$/.exec(text)![0];
    if (form === 'legacy') removeTypedFaults(this.doc.root().node as unknown as Element);
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

/**
 * Takes the typed fault out of a WSDL: every wsdl:fault (portType and bindings), the messages
 * they name, and the top-level schema elements those messages' parts name, with their types.
 * Each removed element goes with the whitespace before it, so the indentation stays as it was.
 */
function removeTypedFaults(definitions: Element): void {
  const all = Array.from(definitions.getElementsByTagNameNS('*', '*'));
  const faults = all.filter((el) => el.namespaceURI === WSDL_NS && el.localName === 'fault');
  const messageNames = new Set(faults.map((f) => localName(f.getAttribute('message'))).filter(Boolean));
  const messages = all.filter((el) => el.namespaceURI === WSDL_NS && el.localName === 'message' && messageNames.has(el.getAttribute('name') ?? ''));
  const partElements = new Set(messages.flatMap((m) => childElements(m).map((p) => localName(p.getAttribute('element')))));
  const schemaChildren = all.filter((el) => el.namespaceURI === XS_NS && el.localName === 'schema').flatMap(childElements);
  const elements = schemaChildren.filter((el) => el.localName === 'element' && partElements.has(el.getAttribute('name') ?? ''));
  const typeNames = new Set(elements.map((el) => localName(el.getAttribute('type'))));
  const types = schemaChildren.filter((el) => el.localName === 'complexType' && typeNames.has(el.getAttribute('name') ?? ''));
  for (const el of [...faults, ...messages, ...elements, ...types]) {
    const before = el.previousSibling;
    if (before?.nodeType === before?.TEXT_NODE && /^\s*$/.test(before!.nodeValue ?? '')) before!.parentNode!.removeChild(before!);
    el.parentNode!.removeChild(el);
  }
}

const localName = (qname: string | null): string => (qname ?? '').replace(/^[^:]*:/, '');
const childElements = (el: Element): Element[] => Array.from(el.childNodes).filter((n): n is Element => n.nodeType === n.ELEMENT_NODE);
