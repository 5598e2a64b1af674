// Calls one operation through any of the four bindings and reads what came back: a result or an
// error, parsed strictly (a response that is not well-formed XML makes the parse throw).

import { SaxesParser } from 'saxes';

export const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';

export type BindingName = 'soap11' | 'soap12' | 'get' | 'post';
export const BINDINGS: readonly BindingName[] = ['soap11', 'soap12', 'get', 'post'];

export interface Answer {
  status: number;
  headers: Headers;
  body: string;
  ms: number;
}

export type Params = Record<string, string | undefined>;
/** Parameters in the order written; a list may repeat a name. */
export type ParamList = Params | readonly (readonly [string, string])[];

export const XML_DECL = '<?xml version="1.0" encoding="utf-8"?>';

export const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The parameters as elements, values escaped (undefined values left out). */
export function paramsXml(params: ParamList): string {
  const list = Array.isArray(params) ? params : Object.entries(params as Params);
  return list
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<${k}>${xmlEscape(v!)}</${k}>`)
    .join('');
}

export interface EnvelopeParts {
  /** Written between the Envelope's start tag and the Body: a soap:Header, whitespace. */
  header?: string;
  /** Attributes added to the Envelope as written, e.g. ` soap:encodingStyle="..."`. */
  envelopeAttrs?: string;
  /** What comes before the Envelope; the UTF-8 XML declaration unless given. */
  prolog?: string;
}

/** A SOAP envelope (prefix `soap`) whose Body holds `body` as written. */
export function envelopeAround(version: '1.1' | '1.2', body: string, parts: EnvelopeParts = {}): string {
  const envNs = version === '1.1' ? SOAP11_NS : SOAP12_NS;
  return `${parts.prolog ?? XML_DECL}<soap:Envelope xmlns:soap="${envNs}"${parts.envelopeAttrs ?? ''}>${parts.header ?? ''}`
    + `<soap:Body>${body}</soap:Body></soap:Envelope>`;
}

/**
 * A SOAP request for `op`, the operation element in `ns` (the service's, SVAPI, unless given)
 * holding `params`: escaped values, or a string of XML written as given.
 */
export function envelope(version: '1.1' | '1.2', op: string, params: ParamList | string, opts: EnvelopeParts & { ns?: string } | string = {}): string {
  const { ns = 'SVAPI', ...parts } = typeof opts === 'string' ? { ns: opts } : opts;
  const inner = typeof params === 'string' ? params : paramsXml(params);
  return envelopeAround(version, `<${op} xmlns="${ns}">${inner}</${op}>`, parts);
}

export const soapContentType = (version: '1.1' | '1.2') => (version === '1.1' ? 'text/xml; charset=utf-8' : 'application/soap+xml; charset=utf-8');

/** Any request, timed; `body` as given. */
export async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(url, { redirect: 'manual', ...init });
  const body = await res.text();
  return { status: res.status, headers: res.headers, body, ms: Date.now() - started };
}

export function formBody(params: Params): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) form.append(k, v);
  return form.toString();
}

/** Calls `op` of the endpoint at `path` through `binding`. */
export function call(base: string, binding: BindingName, path: string, op: string, params: Params, headers: Record<string, string> = {}): Promise<Answer> {
  switch (binding) {
    case 'soap11':
    case 'soap12': {
      const version = binding === 'soap11' ? '1.1' : '1.2';
      return send(base + path, {
        method: 'POST',
        headers: { 'Content-Type': soapContentType(version), ...(version === '1.1' ? { SOAPAction: `"SVAPI/${op}"` } : {}), ...headers },
        body: envelope(version, op, params),
      });
    }
    case 'get':
      return send(`${base}${path}/${op}?${formBody(params)}`, { headers });
    case 'post':
      return send(`${base}${path}/${op}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: formBody(params),
      });
  }
}

interface Node {
  uri: string;
  local: string;
  attrs: Record<string, string>;
  text: string;
  children: Node[];
}

/** Parses a whole document strictly: no DOCTYPE, well-formed, namespaces resolved. */
export function parseXml(xml: string): Node {
  const parser = new SaxesParser({ xmlns: true });
  const stack: Node[] = [];
  let root: Node | undefined;
  let error: Error | undefined;
  parser.on('doctype', () => {
    error ??= new Error('a DOCTYPE in a response');
  });
  parser.on('opentag', (tag) => {
    const attrs: Record<string, string> = {};
    for (const [name, a] of Object.entries(tag.attributes)) attrs[name] = a.value;
    const node: Node = { uri: tag.uri, local: tag.local, attrs, text: '', children: [] };
    if (stack.length) stack[stack.length - 1].children.push(node);
    else root = node;
    stack.push(node);
  });
  parser.on('text', (t) => {
    if (stack.length) stack[stack.length - 1].text += t;
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('error', (e) => {
    error ??= e;
  });
  parser.write(xml).close();
  if (error) throw error;
  if (!root) throw new Error('no root element');
  return root;
}

const child = (n: Node | undefined, local: string) => n?.children.find((c) => c.local === local);

export interface ErrorAnswer {
  /** `soap:Client`, `env:Sender`... for SOAP; undefined for a bare document. */
  faultCode?: string;
  code: string;
  message: string;
  parameter?: string;
}

/**
 * Reads an error answer: a SOAP fault (1.1 or 1.2, with its ServiceError detail) or a bare
 * ServiceError document. Throws when the body is neither.
 */
export function readError(body: string, ns = 'SVAPI'): ErrorAnswer {
  const root = parseXml(body);
  let detail: Node | undefined;
  let faultCode: string | undefined;
  if (root.local === 'Envelope' && (root.uri === SOAP11_NS || root.uri === SOAP12_NS)) {
    const fault = child(child(root, 'Body'), 'Fault');
    if (!fault || fault.uri !== root.uri) throw new Error('no Fault in the Body');
    if (root.uri === SOAP11_NS) {
      faultCode = child(fault, 'faultcode')?.text;
      if (!child(fault, 'faultstring')?.text) throw new Error('no faultstring');
      detail = child(child(fault, 'detail'), 'ServiceError');
    } else {
      faultCode = child(child(fault, 'Code'), 'Value')?.text;
      const text = child(child(fault, 'Reason'), 'Text');
      if (!text?.text || text.attrs['xml:lang'] !== 'en') throw new Error('no Reason/Text xml:lang="en"');
      detail = child(child(fault, 'Detail'), 'ServiceError');
    }
  } else {
    detail = root;
  }
  if (!detail || detail.local !== 'ServiceError' || detail.uri !== ns) throw new Error(`not a ServiceError: ${body.slice(0, 200)}`);
  const code = child(detail, 'Code')?.text;
  const message = child(detail, 'Message')?.text;
  if (!code || !message) throw new Error('ServiceError without Code or Message');
  return { faultCode, code, message, parameter: child(detail, 'Parameter')?.text };
}

/** The status and fault code an error of the caller's kind has on a binding (CONTRACT §7). */
export function callerFault(binding: BindingName, httpStatus: number): { status: number; faultCode?: string } {
  if (binding === 'soap11') return { status: 500, faultCode: 'soap:Client' };
  if (binding === 'soap12') return { status: 400, faultCode: 'env:Sender' };
  return { status: httpStatus };
}

/** The status and fault code of a service-side error on a binding. */
export function serviceFault(binding: BindingName, httpStatus: number): { status: number; faultCode?: string } {
  if (binding === 'soap11') return { status: 500, faultCode: 'soap:Server' };
  if (binding === 'soap12') return { status: 500, faultCode: 'env:Receiver' };
  return { status: httpStatus };
}

/** The result element of a successful answer (the Body's first child's first child on SOAP). */
export function readResult(body: string): Node {
  const root = parseXml(body);
  if (root.local !== 'Envelope') return root;
  const response = child(root, 'Body')?.children[0];
  const result = response?.children[0];
  if (!result) throw new Error(`no result in ${body.slice(0, 200)}`);
  return result;
}

/** Strings no response may contain (CONTRACT §7): stacks, SQL, paths. */
export const LEAKS = [/\bat .*\(.*:\d+:\d+\)/, /\.ts\b|\.js\b/, /\/work\/|node_modules|\/src\//, /\bselect\b.*\bfrom\b/i, /\binsert into\b/i, /relation ".*"/i, /Error:/];

export const WEAPONS = '/api/weapons.asmx';
export const HUNTING = '/API/hunting.asmx';
