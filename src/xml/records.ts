import {
  Operations,
  RecordFields,
  type FieldMeta,
  type OperationName,
  type OperationResults,
  type RecordName,
  type XsdType,
} from '../generated/records';
import { escapeAttr, escapeText } from './escape';
import { XML_DECL, XSI_NS } from './vocabulary';

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
  private readonly results = new Map<OperationName, { record: RecordName; list: boolean }>(Operations.map((o) => [o.name, o.result]));

  /** SOAP: `<OpResult>` holding the records (list) or the record's fields (single record). */
  soapResult<N extends OperationName>(operation: N, data: OperationResults[N], ns: string): string {
    return `<${operation}Result xmlns="${escapeAttr(ns)}" xmlns:xsi="${XSI_NS}">${this.result(operation, data)}</${operation}Result>`;
  }

  /** HTTP GET/POST: a bare document, `ArrayOf<Record>` or the record itself as root. */
  httpDocument<N extends OperationName>(operation: N, data: OperationResults[N], ns: string): string {
    const { record, list } = this.results.get(operation)!;
    const root = list ? `ArrayOf${record}` : record;
    return `${XML_DECL}<${root} xmlns:xsi="${XSI_NS}" xmlns="${escapeAttr(ns)}">${this.result(operation, data)}</${root}>`;
  }

  // Below, values are walked by the generated field metadata, whose types the public methods check.

  private result(operation: OperationName, data: unknown): string {
    const { record, list } = this.results.get(operation)!;
    return list ? this.itemsOf(record, data as readonly unknown[]) : this.fieldsOf(record, data);
  }

  /** The fields of `record` as child elements, in schema order. */
  private fieldsOf(record: RecordName, value: unknown): string {
    const object = value as Record<string, unknown>;
    let out = '';
    for (const field of RecordFields[record] as readonly FieldMeta[]) out += this.field(field, object[field.name]);
    return out;
  }

  /** The records of a list, each as `<Record>`. */
  private itemsOf(record: RecordName, values: readonly unknown[]): string {
    let out = '';
    for (const v of values) out += v === null ? `<${record} xsi:nil="true" />` : `<${record}>${this.fieldsOf(record, v)}</${record}>`;
    return out;
  }

  private field(field: FieldMeta, value: unknown): string {
    const name = field.name;
    if (value === undefined) return '';
    if (value === null) return `<${name} xsi:nil="true" />`;
    let inner: string;
    if (field.kind === 'simple') inner = SIMPLE[field.type](value);
    else if (field.kind === 'record') inner = this.fieldsOf(field.type, value);
    else inner = this.itemsOf(field.type, value as unknown[]);
    return inner ? `<${name}>${inner}</${name}>` : `<${name} />`;
  }
}
