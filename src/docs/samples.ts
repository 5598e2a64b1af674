// ASMX-style sample requests and responses of an operation, for its help page: built from the
// operation table and the record metadata generated from the WSDL, never written per operation.

import { STATUS_CODES } from 'node:http';
import { errors, statusFor } from '../errors';
import { RecordFields, type FieldMeta, type RecordName } from '../generated/records';
import type { Operation } from '../operations/catalog';
import type { ParamType } from '../operations/params';
import { escapeAttr, escapeText } from '../xml/escape';
import { SOAP_CONTENT_TYPES, SOAP_ENVELOPE_NS, XML_DECL, XML_TYPE, XSI_NS } from '../xml/vocabulary';
import { soapActionFor } from '../xml/soap-action';

/** A parameter as the help page shows it: the credentials first, then the operation's own. */
export interface ParamDoc {
  name: string;
  type: ParamType;
  required: boolean;
  note: string;
}

export function paramDocs(op: Operation): ParamDoc[] {
  return [
    { name: 'DevID', type: 'int', required: true, note: 'Your developer ID.' },
    { name: 'DevKey', type: 'string', required: true, note: 'The key issued with your DevID.' },
    ...op.params.map((p) => {
      const notes: string[] = [];
      if (p.type === 'int') notes.push('A 32-bit integer.');
      if (p.min !== undefined) notes.push(`At least ${p.min}.`);
      if (!p.required) notes.push('Optional; absent or empty means empty.');
      if (p.maxLength !== undefined) notes.push(`At most ${p.maxLength} characters.`);
      return { name: p.name, type: p.type, required: p.required, note: notes.join(' ') };
    }),
  ];
}

/** Where requests go: the Host header and the path (with any prefix of the public URL). */
export interface SampleTarget {
  host: string;
  path: string;
  ns: string;
}

export function sampleTarget(base: string, endpointPath: string, ns: string): SampleTarget {
  try {
    const url = new URL(base);
    return { host: url.host, path: url.pathname.replace(/\/+$/, '') + endpointPath, ns };
  } catch {
    return { host: 'localhost', path: endpointPath, ns };
  }
}

export interface Sample {
  /** The binding, as the page's headings name it. */
  title: string;
  request: string;
  response: string;
}

type Mode = 'soap' | 'http';

/**
 * In the SOAP samples a nested complex value three levels below `<Operation>Result` is shown nil
 * (Weapon.DamageTypes.DamageType, HuntingGlobal.Monster.Description, Landarea.Planet) and in the
 * HTTP samples populated, as the legacy service's pages show them (interface spec §2 rule 1).
 */
const SOAP_NIL_DEPTH = 3;

/** A list shows two records, as ASMX samples do. */
const LIST_SAMPLE_ITEMS = 2;

const nilElement = (name: string) => `<${name} xsi:nil="true" />`;

class Lines {
  readonly out: string[] = [];
  add(depth: number, text: string) {
    this.out.push('  '.repeat(depth) + text);
  }
  toString() {
    return this.out.join('\n');
  }
}

/** The fields of `record` at `depth` (1 = directly inside the result). */
function writeFields(lines: Lines, record: RecordName, indent: number, depth: number, mode: Mode) {
  for (const field of RecordFields[record] as readonly FieldMeta[]) {
    if (field.kind === 'simple') {
      lines.add(indent, field.nillable ? nilElement(field.name) : `<${field.name}>${field.type}</${field.name}>`);
    } else if (mode === 'soap' && depth >= SOAP_NIL_DEPTH) {
      lines.add(indent, nilElement(field.name));
    } else if (field.kind === 'record') {
      lines.add(indent, `<${field.name}>`);
      writeFields(lines, field.type, indent + 1, depth + 1, mode);
      lines.add(indent, `</${field.name}>`);
    } else {
      lines.add(indent, `<${field.name}>`);
      writeItems(lines, field.type, field.item, indent + 1, depth + 1, mode);
      lines.add(indent, `</${field.name}>`);
    }
  }
}

function writeItems(lines: Lines, record: RecordName, item: string, indent: number, depth: number, mode: Mode) {
  for (let i = 0; i < LIST_SAMPLE_ITEMS; i++) {
    if (mode === 'soap' && depth >= SOAP_NIL_DEPTH) {
      lines.add(indent, nilElement(item));
      continue;
    }
    lines.add(indent, `<${item}>`);
    writeFields(lines, record, indent + 1, depth + 1, mode);
    lines.add(indent, `</${item}>`);
  }
}

/** What the result holds: the records of a list, or the fields of a single record. */
function writeResult(lines: Lines, op: Operation, indent: number, mode: Mode) {
  if (op.list) writeItems(lines, op.record, op.record, indent, 1, mode);
  else writeFields(lines, op.record, indent, 1, mode);
}

const allParams = (op: Operation) => paramDocs(op);

/** `<root>` of an HTTP GET/POST answer. */
export const httpRoot = (op: Operation): string => (op.list ? `ArrayOf${op.record}` : op.record);

export function soapSample(op: Operation, t: SampleTarget, version: '1.1' | '1.2'): Sample {
  const prefix = version === '1.1' ? 'soap' : 'soap12';
  const envNs = SOAP_ENVELOPE_NS[version];
  const contentType = SOAP_CONTENT_TYPES[version];
  const ns = escapeAttr(t.ns);
  // The request needs no xsi; the response declares it for its nil elements, as the service does.
  const openRequest = `<${prefix}:Envelope xmlns:${prefix}="${envNs}">`;
  const openResponse = `<${prefix}:Envelope xmlns:xsi="${XSI_NS}" xmlns:${prefix}="${envNs}">`;

  const req = new Lines();
  req.add(0, XML_DECL);
  req.add(0, openRequest);
  req.add(1, `<${prefix}:Body>`);
  req.add(2, `<${op.name} xmlns="${ns}">`);
  for (const p of allParams(op)) req.add(3, `<${p.name}>${p.type}</${p.name}>`);
  req.add(2, `</${op.name}>`);
  req.add(1, `</${prefix}:Body>`);
  req.add(0, `</${prefix}:Envelope>`);

  const res = new Lines();
  res.add(0, XML_DECL);
  res.add(0, openResponse);
  res.add(1, `<${prefix}:Body>`);
  res.add(2, `<${op.name}Response xmlns="${ns}">`);
  res.add(3, `<${op.name}Result>`);
  writeResult(res, op, 4, 'soap');
  res.add(3, `</${op.name}Result>`);
  res.add(2, `</${op.name}Response>`);
  res.add(1, `</${prefix}:Body>`);
  res.add(0, `</${prefix}:Envelope>`);

  const headers = [`POST ${t.path} HTTP/1.1`, `Host: ${t.host}`, `Content-Type: ${contentType}`, 'Content-Length: length'];
  if (version === '1.1') headers.push(`SOAPAction: "${soapActionFor(t.ns, op.name)}"`);
  return {
    title: `SOAP ${version}`,
    request: `${headers.join('\n')}\n\n${req}`,
    response: `HTTP/1.1 200 OK\nContent-Type: ${contentType}\nContent-Length: length\n\n${res}`,
  };
}

function httpResponse(op: Operation, t: SampleTarget): string {
  const root = httpRoot(op);
  const doc = new Lines();
  doc.add(0, XML_DECL);
  doc.add(0, `<${root} xmlns:xsi="${XSI_NS}" xmlns="${escapeAttr(t.ns)}">`);
  writeResult(doc, op, 1, 'http');
  doc.add(0, `</${root}>`);
  return `HTTP/1.1 200 OK\nContent-Type: ${XML_TYPE}\nContent-Length: length\n\n${doc}`;
}

/** Each parameter with its type as the placeholder, as in the parameter table and the SOAP samples. */
const formPairs = (op: Operation) => allParams(op).map((p) => `${p.name}=${p.type}`).join('&');

export function httpGetSample(op: Operation, t: SampleTarget): Sample {
  return {
    title: 'HTTP GET',
    request: `GET ${t.path}/${op.name}?${formPairs(op)} HTTP/1.1\nHost: ${t.host}`,
    response: httpResponse(op, t),
  };
}

export function httpPostSample(op: Operation, t: SampleTarget): Sample {
  const body = formPairs(op);
  return {
    title: 'HTTP POST',
    request: `POST ${t.path}/${op.name} HTTP/1.1\nHost: ${t.host}\nContent-Type: application/x-www-form-urlencoded\nContent-Length: length\n\n${body}`,
    response: httpResponse(op, t),
  };
}

/**
 * A `<ServiceError>` document as an HTTP call answers it on failure (the SOAP fault carries the
 * same element as its detail): the operation's first parameter that can be invalid, else the
 * credentials. Messages come from the service's own error table.
 */
export function errorSample(op: Operation, ns: string): string {
  const int = op.params.find((p) => p.type === 'int');
  const limited = op.params.find((p) => p.maxLength !== undefined);
  const e = int ? errors.invalid(int.name, 'must be a 32-bit integer')
    : limited ? errors.invalid(limited.name, `must be at most ${limited.maxLength} characters`)
      : errors.auth();
  const status = statusFor(e, 'http');
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `Content-Type: ${XML_TYPE}`,
    'Content-Length: length',
    '',
    XML_DECL,
    `<ServiceError xmlns="${escapeAttr(ns)}">`,
    `  <Code>${e.code}</Code>`,
    `  <Message>${escapeText(e.message)}</Message>`,
    ...(e.parameter !== undefined ? [`  <Parameter>${escapeText(e.parameter)}</Parameter>`] : []),
    '</ServiceError>',
  ].join('\n');
}
