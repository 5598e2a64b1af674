import { childrenNamed, parseXmlTree, resolveQName, type XmlNode } from './xml-tree';

// What a client generated from a WSDL depends on, read from one endpoint's `?wsdl`: the target
// namespace, the bindings its ports offer with each operation's soapAction or location and
// message parts, and the schema's elements and types with their fields in order.

const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/';
const XSD_NS = 'http://www.w3.org/2001/XMLSchema';
const SOAP11_NS = 'http://schemas.xmlsoap.org/wsdl/soap/';
const SOAP12_NS = 'http://schemas.xmlsoap.org/wsdl/soap12/';
const HTTP_NS = 'http://schemas.xmlsoap.org/wsdl/http/';

export type BindingKind = 'soap11' | 'soap12' | 'httpGet' | 'httpPost';
export const BINDING_KINDS: readonly BindingKind[] = ['soap11', 'soap12', 'httpGet', 'httpPost'];
export const BINDING_LABEL: Record<BindingKind, string> = {
  soap11: 'SOAP 1.1', soap12: 'SOAP 1.2', httpGet: 'HTTP GET', httpPost: 'HTTP POST',
};

/** A member of a sequence: `type` is `s:<xsd type>`, `tns:<name>` or `#<anonymous type key>`. */
export interface Field {
  name: string;
  type: string;
  minOccurs: string;
  maxOccurs: string;
  nillable: boolean;
}

interface BindingOperation {
  /** SOAP bindings: the soapAction; HTTP bindings: the location. */
  action: string;
  /** Message parts as `name=type-or-element`, input then output. */
  input: string[];
  output: string[];
}

export interface Contract {
  targetNamespace: string;
  /** The bindings a wsdl:port offers, each with its operations by name. */
  bindings: Map<BindingKind, Map<string, BindingOperation>>;
  /** Sequences by type key (`tns:Monster`, `#GetMonsters` for a global element's own type). */
  types: Map<string, Field[]>;
  /** Global elements by local name. */
  elements: Map<string, { type: string; nillable: boolean }>;
  /** Whether any portType operation declares a wsdl:fault. */
  declaresFaults: boolean;
}

export class WsdlError extends Error {}

export function readContract(wsdlText: string): Contract {
  let root: XmlNode;
  try {
    root = parseXmlTree(wsdlText);
  } catch (e) {
    throw new WsdlError(`not a readable WSDL (${(e as Error).message.split('\n')[0]})`);
  }
  if (root.uri !== WSDL_NS || root.local !== 'definitions') throw new WsdlError('not a WSDL 1.1 document (no wsdl:definitions)');
  const tns = root.attributes.get('targetNamespace') ?? '';
  const typeName = (node: XmlNode, value: string | undefined): string => {
    if (!value) return '(none)';
    const q = resolveQName(node, value);
    if (q.uri === XSD_NS) return `s:${q.local}`;
    if (q.uri === tns) return `tns:${q.local}`;
    return `{${q.uri}}${q.local}`;
  };
  const contract: Contract = { targetNamespace: tns, bindings: new Map(), types: new Map(), elements: new Map(), declaresFaults: false };
  for (const types of childrenNamed(root, WSDL_NS, 'types')) {
    for (const schema of childrenNamed(types, XSD_NS, 'schema')) readSchema(schema, contract, typeName);
  }
  const messages = new Map<string, string[]>();
  for (const m of childrenNamed(root, WSDL_NS, 'message')) {
    messages.set(m.attributes.get('name') ?? '', childrenNamed(m, WSDL_NS, 'part').map((p) =>
      `${p.attributes.get('name')}=${typeName(p, p.attributes.get('element') ?? p.attributes.get('type'))}`));
  }
  const portTypes = new Map<string, XmlNode>();
  for (const pt of childrenNamed(root, WSDL_NS, 'portType')) {
    portTypes.set(pt.attributes.get('name') ?? '', pt);
    for (const op of childrenNamed(pt, WSDL_NS, 'operation')) if (childrenNamed(op, WSDL_NS, 'fault').length) contract.declaresFaults = true;
  }
  const ported = new Set<string>();
  for (const service of childrenNamed(root, WSDL_NS, 'service')) {
    for (const port of childrenNamed(service, WSDL_NS, 'port')) ported.add(resolveQName(port, port.attributes.get('binding') ?? '').local);
  }
  const messageParts = (node: XmlNode, which: 'input' | 'output') => {
    const m = childrenNamed(node, WSDL_NS, which)[0]?.attributes.get('message');
    return m ? messages.get(resolveQName(node, m).local) ?? [] : [];
  };
  for (const binding of childrenNamed(root, WSDL_NS, 'binding')) {
    if (!ported.has(binding.attributes.get('name') ?? '')) continue;
    const kind = bindingKind(binding);
    if (!kind) continue;
    const portType = portTypes.get(resolveQName(binding, binding.attributes.get('type') ?? '').local);
    const operations = contract.bindings.get(kind) ?? new Map<string, BindingOperation>();
    contract.bindings.set(kind, operations);
    for (const op of childrenNamed(binding, WSDL_NS, 'operation')) {
      const name = op.attributes.get('name') ?? '';
      const abstract = portType && childrenNamed(portType, WSDL_NS, 'operation').find((o) => o.attributes.get('name') === name);
      const detail = op.children.find((c) => c.local === 'operation' && [SOAP11_NS, SOAP12_NS, HTTP_NS].includes(c.uri));
      operations.set(name, {
        action: detail?.attributes.get('soapAction') ?? detail?.attributes.get('location') ?? '',
        input: abstract ? messageParts(abstract, 'input') : [],
        output: abstract ? messageParts(abstract, 'output') : [],
      });
    }
  }
  return contract;
}

function bindingKind(binding: XmlNode): BindingKind | undefined {
  for (const c of binding.children) {
    if (c.local !== 'binding') continue;
    if (c.uri === SOAP11_NS) return 'soap11';
    if (c.uri === SOAP12_NS) return 'soap12';
    if (c.uri === HTTP_NS) return c.attributes.get('verb')?.toUpperCase() === 'POST' ? 'httpPost' : 'httpGet';
  }
  return undefined;
}

type TypeName = (node: XmlNode, value: string | undefined) => string;

function readSchema(schema: XmlNode, contract: Contract, typeName: TypeName): void {
  for (const c of schema.children) {
    if (c.uri !== XSD_NS) continue;
    const name = c.attributes.get('name') ?? '';
    if (c.local === 'complexType') {
      contract.types.set(`tns:${name}`, sequenceOf(c, `tns:${name}`, contract, typeName));
    } else if (c.local === 'element') {
      const inline = childrenNamed(c, XSD_NS, 'complexType')[0];
      const type = inline ? `#${name}` : typeName(c, c.attributes.get('type'));
      if (inline) contract.types.set(type, sequenceOf(inline, type, contract, typeName));
      contract.elements.set(name, { type, nillable: c.attributes.get('nillable') === 'true' });
    }
  }
}

/** The members of a complexType's sequence (an empty complexType has none). */
function sequenceOf(complexType: XmlNode, key: string, contract: Contract, typeName: TypeName): Field[] {
  const sequence = childrenNamed(complexType, XSD_NS, 'sequence')[0];
  if (!sequence) return [];
  return childrenNamed(sequence, XSD_NS, 'element').map((e) => {
    const name = e.attributes.get('name') ?? e.attributes.get('ref') ?? '';
    const inline = childrenNamed(e, XSD_NS, 'complexType')[0];
    let type = typeName(e, e.attributes.get('type'));
    if (inline) {
      type = `#${key.replace(/^[#]|^tns:/, '')}/${name}`;
      contract.types.set(type, sequenceOf(inline, type, contract, typeName));
    }
    return {
      name,
      type,
      minOccurs: e.attributes.get('minOccurs') ?? '1',
      maxOccurs: e.attributes.get('maxOccurs') ?? '1',
      nillable: e.attributes.get('nillable') === 'true',
    };
  });
}
