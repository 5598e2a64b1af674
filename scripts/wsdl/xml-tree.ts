// A small namespace-aware XML tree built with saxes, for the WSDL tooling
// (scripts/check-wsdl.ts, scripts/generate-types.ts). Not used by the server.

import { SaxesParser, type SaxesTagNS, type XMLDecl } from 'saxes';

export const NS = {
  wsdl: 'http://schemas.xmlsoap.org/wsdl/',
  soap: 'http://schemas.xmlsoap.org/wsdl/soap/',
  soap12: 'http://schemas.xmlsoap.org/wsdl/soap12/',
  http: 'http://schemas.xmlsoap.org/wsdl/http/',
  mime: 'http://schemas.xmlsoap.org/wsdl/mime/',
  xs: 'http://www.w3.org/2001/XMLSchema',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
  soapenc11: 'http://schemas.xmlsoap.org/soap/encoding/',
  soapenc12: 'http://www.w3.org/2003/05/soap-encoding',
  xmlns: 'http://www.w3.org/2000/xmlns/',
} as const;

export interface XAttr {
  /** Name as written (`prefix:local` or `local`). */
  name: string;
  prefix: string;
  local: string;
  /** Namespace of the attribute ('' when unprefixed). */
  uri: string;
  value: string;
}

export interface XElement {
  kind: 'element';
  name: string;
  prefix: string;
  local: string;
  uri: string;
  /** Attributes in source order, namespace declarations excluded. */
  attrs: XAttr[];
  /** Namespace declarations written on this element: [prefix ('' = default), uri]. */
  nsDecls: Array<[string, string]>;
  /** Namespace bindings in scope at this element (prefix -> uri, '' = default). */
  scope: Record<string, string>;
  children: XNode[];
  parent: XElement | null;
  /** 1-based line of the start tag. */
  line: number;
}

export interface XText {
  kind: 'text';
  text: string;
}

export type XNode = XElement | XText;

export interface XDocument {
  root: XElement;
  xmlDecl: XMLDecl | null;
  hasDoctype: boolean;
  processingInstructions: number;
}

export class XmlParseError extends Error {}

export function parseXml(text: string, fileName = 'input.xml'): XDocument {
  const parser = new SaxesParser({ xmlns: true, position: true, fileName });
  const stack: XElement[] = [];
  let root: XElement | null = null;
  let xmlDecl: XMLDecl | null = null;
  let hasDoctype = false;
  let processingInstructions = 0;
  let error: Error | null = null;
  let startLine = 1;

  parser.on('xmldecl', (d) => {
    xmlDecl = d;
  });
  parser.on('doctype', () => {
    hasDoctype = true;
  });
  parser.on('processinginstruction', () => {
    processingInstructions += 1;
  });
  parser.on('error', (e) => {
    error ??= e;
  });
  parser.on('opentagstart', () => {
    startLine = parser.line;
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const parent = stack[stack.length - 1] ?? null;
    const attrs: XAttr[] = [];
    const nsDecls: Array<[string, string]> = [];
    for (const a of Object.values(tag.attributes)) {
      if (a.name === 'xmlns') nsDecls.push(['', a.value]);
      else if (a.prefix === 'xmlns') nsDecls.push([a.local, a.value]);
      else attrs.push({ name: a.name, prefix: a.prefix, local: a.local, uri: a.uri, value: a.value });
    }
    const scope: Record<string, string> = { ...(parent ? parent.scope : {}) };
    for (const [p, u] of nsDecls) scope[p] = u;
    const el: XElement = {
      kind: 'element',
      name: tag.name,
      prefix: tag.prefix,
      local: tag.local,
      uri: tag.uri,
      attrs,
      nsDecls,
      scope,
      children: [],
      parent,
      line: startLine,
    };
    if (parent) parent.children.push(el);
    else root = el;
    stack.push(el);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  const addText = (t: string): void => {
    const parent = stack[stack.length - 1];
    if (!parent) return;
    const last = parent.children[parent.children.length - 1];
    if (last && last.kind === 'text') last.text += t;
    else parent.children.push({ kind: 'text', text: t });
  };
  parser.on('text', addText);
  parser.on('cdata', addText);

  try {
    parser.write(text).close();
  } catch (e) {
    error ??= e as Error;
  }
  if (error) throw new XmlParseError(`${fileName}: not well-formed XML: ${(error as Error).message}`);
  if (!root) throw new XmlParseError(`${fileName}: no root element`);
  return { root, xmlDecl, hasDoctype, processingInstructions };
}

/** Child elements, optionally only those with the given namespace and local name. */
export function elements(el: XElement, uri?: string, local?: string): XElement[] {
  const out: XElement[] = [];
  for (const c of el.children) {
    if (c.kind !== 'element') continue;
    if (uri !== undefined && c.uri !== uri) continue;
    if (local !== undefined && c.local !== local) continue;
    out.push(c);
  }
  return out;
}

export function firstElement(el: XElement, uri: string, local: string): XElement | undefined {
  return elements(el, uri, local)[0];
}

/** Every element below `el` (depth first, document order), `el` excluded. */
export function descendants(el: XElement): XElement[] {
  const out: XElement[] = [];
  const walk = (e: XElement): void => {
    for (const c of e.children) {
      if (c.kind === 'element') {
        out.push(c);
        walk(c);
      }
    }
  };
  walk(el);
  return out;
}

/** Value of an unqualified attribute. */
export function attr(el: XElement, local: string): string | undefined {
  return el.attrs.find((a) => a.uri === '' && a.local === local)?.value;
}

export function textContent(el: XElement): string {
  let s = '';
  for (const c of el.children) s += c.kind === 'text' ? c.text : textContent(c);
  return s;
}

export interface QName {
  uri: string;
  local: string;
}

/**
 * Resolves a QName-valued attribute (`tns:Weapon`) in the scope of `el`.
 * Unprefixed names take the default namespace, as XML Schema QNames do.
 * Returns null when the prefix is not declared.
 */
export function resolveQName(el: XElement, value: string): QName | null {
  const v = value.trim();
  const i = v.indexOf(':');
  const prefix = i < 0 ? '' : v.slice(0, i);
  const local = i < 0 ? v : v.slice(i + 1);
  const uri = el.scope[prefix];
  if (uri === undefined) return i < 0 ? { uri: '', local } : null;
  return { uri, local };
}

export function qnameKey(q: QName): string {
  return `{${q.uri}}${q.local}`;
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

/**
 * Serializes an element as XML. With `standalone`, the namespace bindings the
 * element inherits from its ancestors are declared on it, so the output is a
 * well-formed document on its own (used to extract an inline xs:schema).
 */
export function serialize(el: XElement, standalone = false): string {
  const decls: Array<[string, string]> = [...el.nsDecls];
  if (standalone) {
    const own = new Set(el.nsDecls.map(([p]) => p));
    for (const [p, u] of Object.entries(el.scope)) if (!own.has(p)) decls.push([p, u]);
  }
  let s = `<${el.name}`;
  for (const [p, u] of decls) s += ` ${p === '' ? 'xmlns' : `xmlns:${p}`}="${escapeAttr(u)}"`;
  for (const a of el.attrs) s += ` ${a.name}="${escapeAttr(a.value)}"`;
  if (el.children.length === 0) return `${s} />`;
  s += '>';
  for (const c of el.children) s += c.kind === 'text' ? escapeText(c.text) : serialize(c);
  return `${s}</${el.name}>`;
}

/**
 * A canonical text of an element for comparing two declarations: names and
 * attributes as written, in order; whitespace-only text and namespace
 * declarations ignored.
 */
export function canonical(el: XElement): string {
  let s = `<${el.name}`;
  for (const a of el.attrs) s += ` ${a.name}="${escapeAttr(a.value)}"`;
  const kids = el.children.filter((c) => c.kind === 'element' || c.text.trim() !== '');
  if (kids.length === 0) return `${s}/>`;
  s += '>';
  for (const c of kids) s += c.kind === 'text' ? escapeText(c.text.trim()) : canonical(c);
  return `${s}</${el.name}>`;
}
