import {
  Operations,
  RecordFields,
  type FieldMeta,
  type OperationName,
  type OperationResults,
  type RecordName,
} from '../generated/records';
import { escapeAttr, escapeText } from './escape';
import { XML_DECL, XSI_NS } from './vocabulary';

/** Writes the fields of one record as child elements. */
type FieldsWriter = (record: unknown) => string;

/**
 * Writes records as XML for every binding, driven by the metadata generated from the XSD: element
 * order, xsi:nil and omission follow the schema (CONTRACT §4), never the order of object keys.
 */
export class RecordSerializer {
  private readonly results = new Map<OperationName, { record: RecordName; list: boolean }>(Operations.map((o) => [o.name, o.result]));

  /** SOAP: `<OpResult>` holding the records (list) or the record's fields (single record). */
  soapResult<N extends OperationName>(operation: N, data: OperationResults[N], ns: string): string {
    return this.soapResultParts(operation, data, ns, []).join('');
  }

  /** HTTP GET/POST: a bare document, `ArrayOf<Record>` or the record itself as root, and a line end. */
  httpDocument<N extends OperationName>(operation: N, data: OperationResults[N], ns: string): string {
    return this.httpDocumentParts(operation, data, ns, []).join('');
  }

  /**
   * soapResult as consecutive parts appended to `out` (a record each for a list): a long answer
   * is then written as UTF-8 bytes part by part (http/answer.ts, bodyOf) instead of as one string.
   */
  soapResultParts<N extends OperationName>(operation: N, data: OperationResults[N], ns: string, out: string[]): string[] {
    out.push(`<${operation}Result xmlns="${escapeAttr(ns)}" xmlns:xsi="${XSI_NS}">`);
    this.result(operation, data, out);
    out.push(`</${operation}Result>`);
    return out;
  }

  /** httpDocument as consecutive parts appended to `out`, as soapResultParts. */
  httpDocumentParts<N extends OperationName>(operation: N, data: OperationResults[N], ns: string, out: string[]): string[] {
    const { record, list } = this.results.get(operation)!;
    const root = list ? `ArrayOf${record}` : record;
    out.push(`${XML_DECL}<${root} xmlns:xsi="${XSI_NS}" xmlns="${escapeAttr(ns)}">`);
    this.result(operation, data, out);
    out.push(`</${root}>\n`);
    return out;
  }

  private result(operation: OperationName, data: unknown, out: string[]): void {
    const { record, list } = this.results.get(operation)!;
    if (list) writeItems(record, data as readonly unknown[], out);
    else out.push(WRITERS[record](data));
  }
}

/** The records of a list, each as `<Record>` (xsi:nil for a null one), one part each. */
function writeItems(record: RecordName, values: readonly unknown[], out: string[]): void {
  const write = WRITERS[record];
  const open = `<${record}>`;
  const close = `</${record}>`;
  const nil = `<${record} xsi:nil="true" />`;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out.push(v === null ? nil : open + write(v) + close);
  }
}

/**
 * One function per record type, generated once from its field metadata (as fastify compiles a
 * schema into a serializer): the answer of 1,000 items is written 3x faster than by walking
 * the metadata for every field of every record, which was a third of an uncached answer's CPU.
 * Per field, in schema order: null is `<F xsi:nil="true" />`, and so is undefined for a member the
 * schema requires and lets be nil (minOccurs="1" nillable="true": ASMX's XmlSerializer always
 * sends it); any other undefined is omitted, an empty value `<F />`, anything else
 * `<F>value</F>`; strings escaped, booleans `true`/`false`, other simple values as String()
 * gives them (decimals and dateTimes arrive as their exact text).
 * The code holds only names from the generated metadata, each written as a JSON string literal.
 */
function compileWriters(): Record<RecordName, FieldsWriter> {
  const writers = {} as Record<RecordName, FieldsWriter>;
  const str = JSON.stringify;
  for (const record of Object.keys(RecordFields) as RecordName[]) {
    let body = "let out = '', v, t;\n";
    for (const field of RecordFields[record] as readonly FieldMeta[]) {
      const name = field.name;
      const alwaysSent = field.nillable === true && field.optional !== true;
      body += `v = o[${str(name)}];\n`
        + `if (v === null${alwaysSent ? ' || v === undefined' : ''}) out += ${str(`<${name} xsi:nil="true" />`)};\n`
        + 'else if (v !== undefined) {\n';
      if (field.kind === 'simple') {
        body += field.type === 'string' ? '  t = escapeText(String(v));\n'
          : field.type === 'boolean' ? "  t = v ? 'true' : 'false';\n"
            : '  t = String(v);\n';
      } else if (field.kind === 'record') {
        body += `  t = writers[${str(field.type)}](v);\n`;
      } else {
        body += `  t = '';\n  for (let i = 0; i < v.length; i++) {\n`
          + `    t += v[i] === null ? ${str(`<${field.item} xsi:nil="true" />`)}`
          + ` : ${str(`<${field.item}>`)} + writers[${str(field.type)}](v[i]) + ${str(`</${field.item}>`)};\n  }\n`;
      }
      body += `  out += t === '' ? ${str(`<${name} />`)} : ${str(`<${name}>`)} + t + ${str(`</${name}>`)};\n}\n`;
    }
    body += 'return out;\n';
    const fn = `write${record.replace(/[^\w$]/g, '_')}`;
    writers[record] = new Function('writers', 'escapeText', `return function ${fn}(o) {\n${body}};`)(writers, escapeText);
  }
  return writers;
}

const WRITERS = compileWriters();
