// A small namespace-aware DOM over saxes, for tests that inspect XML responses.

import { SaxesParser } from 'saxes';

export interface XmlAttr {
  /** Qualified name as written (`xsi:nil`). */
  name: string;
  local: string;
  prefix: string;
  uri: string;
  value: string;
}

export interface XmlElement {
  /** Qualified name as written (`soap:Envelope`). */
  name: string;
  local: string;
  prefix: string;
  /** Namespace URI ('' when the element is in no namespace). */
  uri: string;
  /** Attributes by qualified name, namespace declarations included. */
  attrs: Record<string, XmlAttr>;
  children: XmlElement[];
  /** Text and CDATA directly inside this element (not inside its children). */
  text: string;
  parent?: XmlElement;
}

export interface XmlDocument {
  root: XmlElement;
  /** The XML declaration, when there was one. */
  declaration?: { version: string; encoding?: string; standalone?: string };
  /** True when the text began with `<?xml`, i.e. the declaration came first. */
  startsWithDeclaration: boolean;
}

export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

/** Parses a whole document (well-formedness and namespace errors throw). */
export function parseDocument(xml: string): XmlDocument {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let declaration: XmlDocument['declaration'];

  parser.on('xmldecl', (d) => {
    declaration = { version: d.version ?? '1.0', encoding: d.encoding, standalone: d.standalone };
  });
  parser.on('opentag', (tag) => {
    const attrs: Record<string, XmlAttr> = {};
    for (const [qname, a] of Object.entries(tag.attributes)) {
      attrs[qname] = { name: qname, local: a.local, prefix: a.prefix, uri: a.uri, value: a.value };
    }
    const el: XmlElement = { name: tag.name, local: tag.local, prefix: tag.prefix, uri: tag.uri, attrs, children: [], text: '' };
    const parent = stack[stack.length - 1];
    if (parent) {
      el.parent = parent;
      parent.children.push(el);
    } else {
      root = el;
    }
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
  let error: Error | undefined;
  parser.on('error', (e) => {
    error ??= e;
  });
  parser.write(xml).close();
  if (error) throw error;
  if (!root) throw new Error('no root element');
  return { root, declaration, startsWithDeclaration: xml.startsWith('<?xml') };
}

/** Parses a document and returns its root element. */
export function parse(xml: string): XmlElement {
  return parseDocument(xml).root;
}

/** Local name, optionally with a namespace URI: `'Body'` or `{ local: 'Body', uri: SOAP12 }`. */
export type Name = string | { local: string; uri?: string };

function matches(el: XmlElement, name: Name): boolean {
  if (typeof name === 'string') return el.local === name;
  return el.local === name.local && (name.uri === undefined || el.uri === name.uri);
}

/** Every descendant (not `el` itself) with that name, in document order. */
export function findAll(el: XmlElement, name: Name): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    for (const c of e.children) {
      if (matches(c, name)) out.push(c);
      walk(c);
    }
  };
  walk(el);
  return out;
}

/** The first descendant with that name, or undefined. */
export function find(el: XmlElement, name: Name): XmlElement | undefined {
  for (const c of el.children) {
    if (matches(c, name)) return c;
    const deeper = find(c, name);
    if (deeper) return deeper;
  }
  return undefined;
}

/** The direct children with that name. */
export function children(el: XmlElement, name?: Name): XmlElement[] {
  return name === undefined ? el.children : el.children.filter((c) => matches(c, name));
}

/** The first direct child with that name, or undefined. */
export function child(el: XmlElement, name: Name): XmlElement | undefined {
  return el.children.find((c) => matches(c, name));
}

/** Follows a path of direct children (`path(env, 'Body', 'GetMonsterResponse')`); throws when a step is missing. */
export function path(el: XmlElement, ...names: Name[]): XmlElement {
  let cur = el;
  for (const n of names) {
    const next = child(cur, n);
    if (!next) throw new Error(`<${cur.name}> has no child ${typeof n === 'string' ? n : n.local}; children: ${cur.children.map((c) => c.name).join(', ') || 'none'}`);
    cur = next;
  }
  return cur;
}

/** The text of the first direct child with that name (undefined when absent). */
export function childText(el: XmlElement, name: Name): string | undefined {
  return child(el, name)?.text;
}

/** An attribute's value by namespace URI and local name (undefined when absent). */
export function attrNS(el: XmlElement, uri: string, local: string): string | undefined {
  return Object.values(el.attrs).find((a) => a.uri === uri && a.local === local)?.value;
}

/** True when the element carries xsi:nil="true" (or "1"). */
export function isNil(el: XmlElement): boolean {
  const v = attrNS(el, XSI_NS, 'nil')?.trim();
  return v === 'true' || v === '1';
}

/** All text inside the element, its descendants' included, in document order. */
export function deepText(el: XmlElement): string {
  return el.text + el.children.map(deepText).join('');
}
