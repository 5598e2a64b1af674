import { RecordFields, type FieldMeta, type RecordName, type XsdType } from '../generated/records';
import { escapeText } from './escape';
import { XML_DECL } from './faults';

export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

const SIMPLE: Record<XsdType, (v: unknown) => string> = {
  int: (v) => String(v),
  // Decimals arrive as the database's exact text and never pass through a float.
  decimal: (v) => String(v),
  dateTime: (v) => String(v),
  boolean: (v) => (v ? 'true' : 'false'),
  string: (v) => escapeText(String(v)),
};

/**
 * Writes records as XML for every binding, driven by the metadata generated from the XSD: element
 * order, xsi:nil and omission follow the schema (CONTRACT §4), never the order of object keys.
 */
export class RecordSerializer {
  /** The fields of `record` as child elements, in schema order. */
  fields(record: RecordName, value: unknown): string {
    const object = value as Record<string, unknown>;
    let out = '';
    for (const field of RecordFields[record] as readonly FieldMeta[]) out += this.field(field, object[field.name]);
    return out;
  }

  /** The records of a list, each as `<Record>`. */
  items(record: RecordName, values: readonly unknown[]): string {
    let out = '';
    for (const v of values) out += v === null ? `<${record} xsi:nil="true" />` : `<${record}>${this.fields(record, v)}</${record}>`;
    return out;
  }

  private field(field: FieldMeta, value: unknown): string {
    const name = field.name;
    if (value === undefined) return '';
    if (value === null) return `<${name} xsi:nil="true" />`;
    let inner: string;
    if (field.kind === 'simple') inner = SIMPLE[field.type](value);
    else if (field.kind === 'record') inner = this.fields(field.type, value);
    else inner = this.items(field.type, value as unknown[]);
    return inner ? `<${name}>${inner}</${name}>` : `<${name} />`;
  }

  /** SOAP: `<OpResult>` holding the records (list) or the record's fields (single record). */
  soapResult(operation: string, record: RecordName, list: boolean, data: unknown, ns: string): string {
    const inner = list ? this.items(record, data as unknown[]) : this.fields(record, data);
    return `<${operation}Result xmlns="${escapeText(ns)}" xmlns:xsi="${XSI_NS}">${inner}</${operation}Result>`;
  }

  /** HTTP GET/POST: a bare document, `ArrayOf<Record>` or the record itself as root. */
  httpDocument(record: RecordName, list: boolean, data: unknown, ns: string): string {
    const root = list ? `ArrayOf${record}` : record;
    const inner = list ? this.items(record, data as unknown[]) : this.fields(record, data);
    return `${XML_DECL}<${root} xmlns:xsi="${XSI_NS}" xmlns="${escapeText(ns)}">${inner}</${root}>`;
  }
}
