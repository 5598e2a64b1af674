// A minimal namespace-aware XML tree for tests: parsing fails on anything that is not
// well-formed namespaced XML (an undeclared prefix included, e.g. xsi:nil without xmlns:xsi).

import { SaxesParser, type SaxesTagNS } from 'saxes';

export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
export const XML_NS = 'http://www.w3.org/XML/1998/namespace';

export interface XmlAttribute {
  name: string;
  prefix: string;
  local: string;
  uri: string;
  value: string;
}

export interface XmlElement {
  name: string;
  prefix: string;
  local: string;
  uri: string;
  /** Attributes by qualified name, namespace declarations excluded. */
  attributes: Record<string, XmlAttribute>;
  /** Namespace declarations made on this element (prefix '' = default namespace). */
  declared: Record<string, string>;
  /** Every namespace in scope here, by prefix. */
  scope: Record<string, string>;
  children: XmlElement[];
  /** Concatenated text and CDATA directly inside this element. */
  text: string;
  parent?: XmlElement;
}

export interface XmlDocument {
  root: XmlElement;
  doctype: boolean;
}

/** Parses a document; throws on malformed XML or an unbound prefix. */
export function parseXml(xml: string): XmlDocument {
  const parser = new SaxesParser({ xmlns: true, additionalNamespaces: {} });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let doctype = false;
  parser.on('doctype', () => {
    doctype = true;
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const parent = stack[stack.length - 1];
    const declared: Record<string, string> = { ...tag.ns };
    const attributes: Record<string, XmlAttribute> = {};
    for (const a of Object.values(tag.attributes)) {
      if (a.name === 'xmlns' || a.prefix === 'xmlns') continue;
      attributes[a.name] = { name: a.name, prefix: a.prefix, local: a.local, uri: a.uri, value: a.value };
    }
    const el: XmlElement = {
      name: tag.name,
      prefix: tag.prefix,
      local: tag.local,
      uri: tag.uri,
      attributes,
      declared,
      scope: { ...(parent?.scope ?? {}), ...declared },
      children: [],
      text: '',
      parent,
    };
    if (parent) parent.children.push(el);
    else root = el;
    stack.push(el);
  });
  const onText = (t: string) => {
    const top = stack[stack.length - 1];
    if (top) top.text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.write(xml).close();
  if (!root) throw new Error('no root element');
  return { root, doctype };
}

/** Children with the given local name (and namespace, when given). */
export function findAll(el: XmlElement, local: string, uri?: string): XmlElement[] {
  return el.children.filter((c) => c.local === local && (uri === undefined || c.uri === uri));
}

/** The one child with the given local name (and namespace); throws unless exactly one. */
export function child(el: XmlElement, local: string, uri?: string): XmlElement {
  const found = findAll(el, local, uri);
  if (found.length !== 1) {
    throw new Error(`expected one <${local}> in <${el.name}>, found ${found.length}: ${el.children.map((c) => c.name).join(', ')}`);
  }
  return found[0];
}

/** Every element of the subtree, depth first, `el` included. */
export function descendants(el: XmlElement): XmlElement[] {
  return [el, ...el.children.flatMap(descendants)];
}

/** The first element of the subtree with that local name, or undefined. */
export function findDeep(el: XmlElement, local: string, uri?: string): XmlElement | undefined {
  return descendants(el).find((d) => d.local === local && (uri === undefined || d.uri === uri));
}

/** True when the element carries xsi:nil="true" (or "1"). */
export function isNil(el: XmlElement): boolean {
  return Object.values(el.attributes).some((a) => a.uri === XSI_NS && a.local === 'nil' && ['true', '1'].includes(a.value.trim()));
}

/** A QName text (e.g. a faultcode `soap:Client`) resolved against the element's namespaces. */
export function resolveQName(el: XmlElement, qname: string): { uri: string | undefined; local: string } {
  const text = qname.trim();
  const i = text.indexOf(':');
  const prefix = i < 0 ? '' : text.slice(0, i);
  return { uri: el.scope[prefix], local: i < 0 ? text : text.slice(i + 1) };
}

/**
 * The element as a plain value for comparisons: `[name, value]` where value is null for
 * xsi:nil, the list of child values for an element with children, else its text ('' for an
 * empty element). Names are local names; namespaces are checked separately.
 */
export type Shape = [string, Shape[] | string | null];

export function shape(el: XmlElement): Shape {
  if (isNil(el)) return [el.local, null];
  if (el.children.length) return [el.local, el.children.map(shape)];
  return [el.local, el.text];
}

/**
 * Serializes an element as a document of its own: every namespace in scope at the element is
 * declared on it, so the result means what it meant inside the original document.
 */
export function serialize(el: XmlElement, top = true): string {
  const decls = top ? el.scope : el.declared;
  const attrs = [
    ...Object.entries(decls).map(([p, uri]) => [p ? `xmlns:${p}` : 'xmlns', uri]),
    ...Object.values(el.attributes).map((a) => [a.name, a.value]),
  ].map(([n, v]) => ` ${n}="${escape(v).replace(/"/g, '&quot;')}"`).join('');
  const inner = el.children.length ? el.children.map((c) => serialize(c, false)).join('') : escape(el.text);
  return `<${el.name}${attrs}>${inner}</${el.name}>`;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
