// The parts of a WSDL 1.1 document the tooling looks at, read from the XML tree.
// References are kept as resolved QNames (null when the prefix is undeclared);
// whether they point at something is for scripts/check-wsdl.ts to say.

import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  NS,
  attr,
  elements,
  firstElement,
  parseXml,
  qnameKey,
  resolveQName,
  type QName,
  type XDocument,
  type XElement,
} from './xml-tree';

/** The WSDL files of the service, in the order the tooling reports and merges them. */
export const WSDL_DIR = path.resolve(__dirname, '..', '..', 'wsdl');
export const WSDL_FILES = ['weapons.wsdl', 'item.wsdl', 'hunting.wsdl', 'auction.wsdl'] as const;
/** The namespace the WSDL files on disk use; the server substitutes the configured one. */
export const PLACEHOLDER_NAMESPACE = 'SVAPI';

export interface Ref {
  raw: string;
  q: QName | null;
}

export interface SchemaModel {
  el: XElement;
  targetNamespace: string | undefined;
  elements: Map<string, XElement>;
  complexTypes: Map<string, XElement>;
  simpleTypes: Map<string, XElement>;
}

export interface PartModel {
  name: string;
  el: XElement;
  element?: Ref;
  type?: Ref;
}

export interface MessageModel {
  name: string;
  el: XElement;
  parts: PartModel[];
}

export interface ParamModel {
  el: XElement;
  name?: string;
  message?: Ref;
}

export interface PortTypeOperationModel {
  name: string;
  el: XElement;
  input?: ParamModel;
  output?: ParamModel;
  faults: ParamModel[];
}

export interface PortTypeModel {
  name: string;
  el: XElement;
  operations: PortTypeOperationModel[];
}

export type BindingKind = 'soap11' | 'soap12' | 'http' | 'unknown';

export interface BindingOperationModel {
  name: string;
  el: XElement;
  input?: XElement;
  output?: XElement;
  faults: XElement[];
}

export interface BindingModel {
  name: string;
  el: XElement;
  type?: Ref;
  kind: BindingKind;
  /** The soap:binding / soap12:binding / http:binding element. */
  ext?: XElement;
  /** Namespace of the binding's extension elements. */
  extNs?: string;
  operations: BindingOperationModel[];
}

export interface PortModel {
  name: string;
  el: XElement;
  binding?: Ref;
  address?: XElement;
}

export interface ServiceModel {
  name: string;
  el: XElement;
  ports: PortModel[];
}

export interface WsdlModel {
  file: string;
  text: string;
  doc: XDocument;
  root: XElement;
  tns: string;
  schemas: SchemaModel[];
  messages: MessageModel[];
  portTypes: PortTypeModel[];
  bindings: BindingModel[];
  services: ServiceModel[];
}

function ref(el: XElement, name: string): Ref | undefined {
  const raw = attr(el, name);
  return raw === undefined ? undefined : { raw, q: resolveQName(el, raw) };
}

function named(el: XElement): string {
  return attr(el, 'name') ?? '';
}

function readSchema(el: XElement): SchemaModel {
  const s: SchemaModel = {
    el,
    targetNamespace: attr(el, 'targetNamespace'),
    elements: new Map(),
    complexTypes: new Map(),
    simpleTypes: new Map(),
  };
  for (const c of elements(el, NS.xs)) {
    const n = attr(c, 'name');
    if (n === undefined) continue;
    const map = c.local === 'element' ? s.elements : c.local === 'complexType' ? s.complexTypes : c.local === 'simpleType' ? s.simpleTypes : null;
    if (map && !map.has(n)) map.set(n, c);
  }
  return s;
}

function readParam(el: XElement): ParamModel {
  return { el, name: attr(el, 'name'), message: ref(el, 'message') };
}

const BINDING_NS: Array<[string, BindingKind]> = [
  [NS.soap, 'soap11'],
  [NS.soap12, 'soap12'],
  [NS.http, 'http'],
];

function readBinding(el: XElement): BindingModel {
  let kind: BindingKind = 'unknown';
  let ext: XElement | undefined;
  let extNs: string | undefined;
  for (const [ns, k] of BINDING_NS) {
    const e = firstElement(el, ns, 'binding');
    if (e) {
      kind = k;
      ext = e;
      extNs = ns;
      break;
    }
  }
  return {
    name: named(el),
    el,
    type: ref(el, 'type'),
    kind,
    ext,
    extNs,
    operations: elements(el, NS.wsdl, 'operation').map((op) => ({
      name: named(op),
      el: op,
      input: firstElement(op, NS.wsdl, 'input'),
      output: firstElement(op, NS.wsdl, 'output'),
      faults: elements(op, NS.wsdl, 'fault'),
    })),
  };
}

export function readWsdl(text: string, file: string): WsdlModel {
  const doc = parseXml(text, file);
  const root = doc.root;
  const types = elements(root, NS.wsdl, 'types');
  return {
    file,
    text,
    doc,
    root,
    tns: attr(root, 'targetNamespace') ?? '',
    schemas: types.flatMap((t) => elements(t, NS.xs, 'schema')).map(readSchema),
    messages: elements(root, NS.wsdl, 'message').map((m) => ({
      name: named(m),
      el: m,
      parts: elements(m, NS.wsdl, 'part').map((p) => ({ name: named(p), el: p, element: ref(p, 'element'), type: ref(p, 'type') })),
    })),
    portTypes: elements(root, NS.wsdl, 'portType').map((pt) => ({
      name: named(pt),
      el: pt,
      operations: elements(pt, NS.wsdl, 'operation').map((op) => {
        const input = firstElement(op, NS.wsdl, 'input');
        const output = firstElement(op, NS.wsdl, 'output');
        return {
          name: named(op),
          el: op,
          input: input && readParam(input),
          output: output && readParam(output),
          faults: elements(op, NS.wsdl, 'fault').map(readParam),
        };
      }),
    })),
    bindings: elements(root, NS.wsdl, 'binding').map(readBinding),
    services: elements(root, NS.wsdl, 'service').map((s) => ({
      name: named(s),
      el: s,
      ports: elements(s, NS.wsdl, 'port').map((p) => ({
        name: named(p),
        el: p,
        binding: ref(p, 'binding'),
        address: elements(p).find((e) => e.local === 'address'),
      })),
    })),
  };
}

export function loadWsdl(file: string): WsdlModel {
  return readWsdl(fs.readFileSync(file, 'utf8'), file);
}

/** The four WSDL files of the service, parsed. */
export function loadServiceWsdls(dir = WSDL_DIR): WsdlModel[] {
  return WSDL_FILES.map((f) => loadWsdl(path.join(dir, f)));
}

// --- lookups -----------------------------------------------------------------

function inTns<T extends { name: string }>(m: WsdlModel, list: T[], q: QName | null | undefined): T | undefined {
  if (!q || q.uri !== m.tns) return undefined;
  return list.find((x) => x.name === q.local);
}

export const findMessage = (m: WsdlModel, q: QName | null | undefined): MessageModel | undefined => inTns(m, m.messages, q);
export const findPortType = (m: WsdlModel, q: QName | null | undefined): PortTypeModel | undefined => inTns(m, m.portTypes, q);
export const findBinding = (m: WsdlModel, q: QName | null | undefined): BindingModel | undefined => inTns(m, m.bindings, q);

export function findSchemaElement(m: WsdlModel, q: QName | null | undefined): XElement | undefined {
  if (!q) return undefined;
  for (const s of m.schemas) if ((s.targetNamespace ?? '') === q.uri && s.elements.has(q.local)) return s.elements.get(q.local);
  return undefined;
}

export const XSD_BUILTINS = new Set(
  (
    'anyType anySimpleType string boolean decimal float double duration dateTime time date gYearMonth gYear gMonthDay gDay gMonth ' +
    'hexBinary base64Binary anyURI QName NOTATION normalizedString token language NMTOKEN NMTOKENS Name NCName ID IDREF IDREFS ' +
    'ENTITY ENTITIES integer nonPositiveInteger negativeInteger long int short byte nonNegativeInteger unsignedLong unsignedInt ' +
    'unsignedShort unsignedByte positiveInteger'
  ).split(' '),
);

/** The named complexType/simpleType a QName refers to; `'builtin'` for XSD built-in types. */
export function findSchemaType(m: WsdlModel, q: QName | null | undefined): XElement | 'builtin' | undefined {
  if (!q) return undefined;
  if (q.uri === NS.xs) return XSD_BUILTINS.has(q.local) ? 'builtin' : undefined;
  for (const s of m.schemas) {
    if ((s.targetNamespace ?? '') !== q.uri) continue;
    const t = s.complexTypes.get(q.local) ?? s.simpleTypes.get(q.local);
    if (t) return t;
  }
  return undefined;
}

export { qnameKey };
