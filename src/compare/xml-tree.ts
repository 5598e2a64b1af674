import { SaxesParser, type SaxesTagNS } from 'saxes';

/** An element of a parsed answer or WSDL: names resolved against the namespaces in scope. */
export interface XmlNode {
  local: string;
  uri: string;
  /** Attributes by `{uri}local` (namespace declarations left out). */
  attributes: Map<string, string>;
  children: XmlNode[];
  /** Character data directly inside the element, concatenated. */
  text: string;
  /** The namespaces in scope, by prefix ('' = default): for QNames in attribute values. */
  scope: Readonly<Record<string, string>>;
}

export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

export const attrKey = (uri: string, local: string) => (uri ? `{${uri}}${local}` : local);

/** Parses a whole document; throws on anything that is not well-formed namespaced XML. */
export function parseXmlTree(xml: string): XmlNode {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  parser.on('opentag', (tag: SaxesTagNS) => {
    const attributes = new Map<string, string>();
    for (const a of Object.values(tag.attributes)) {
      if (a.name === 'xmlns' || a.prefix === 'xmlns') continue;
      attributes.set(attrKey(a.uri, a.local), a.value);
    }
    const parent = stack[stack.length - 1];
    const inherited = parent?.scope ?? {};
    const scope = tag.ns && Object.keys(tag.ns).length ? { ...inherited, ...tag.ns } : inherited;
    const node: XmlNode = { local: tag.local, uri: tag.uri, attributes, children: [], text: '', scope };
    if (parent) parent.children.push(node);
    else root = node;
    stack.push(node);
  });
  const addText = (t: string) => {
    const top = stack[stack.length - 1];
    if (top) top.text += t;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => void stack.pop());
  parser.write(xml.replace(/^\uFEFF/, '')).close();
  if (!root) throw new Error('no root element');
  return root;
}

/** A QName attribute value (`tns:Monster`) as `{ uri, local }`; an unbound prefix gives uri ''. */
export function resolveQName(node: XmlNode, value: string): { uri: string; local: string } {
  const i = value.indexOf(':');
  const prefix = i < 0 ? '' : value.slice(0, i);
  return { uri: node.scope[prefix] ?? '', local: value.slice(i + 1) };
}

/** The child elements named `local` in namespace `uri`. */
export const childrenNamed = (node: XmlNode, uri: string, local: string) =>
  node.children.filter((c) => c.uri === uri && c.local === local);
