import { RecordFields, type FieldMeta, type RecordName, type XsdType } from '../../generated/records';
import { aspNetDate } from './asp-net-date';

// A decimal as the database writes it: a JSON number as it stands (no exponent, no leading `+`).
const JSON_DECIMAL = /^-?\d+(\.\d+)?$/;

const SIMPLE: Record<XsdType, (v: unknown) => string> = {
  int: (v) => String(v),
  // The database's exact text, never through a binary float: `0.1` stays `0.1`.
  decimal: (v) => {
    const text = String(v);
    if (!JSON_DECIMAL.test(text)) throw new Error(`decimal ${text} cannot be written as a JSON number`);
    return text;
  },
  dateTime: (v) => aspNetDate(String(v)),
  boolean: (v) => (v ? 'true' : 'false'),
  string: (v) => JSON.stringify(String(v)),
};

/**
 * Writes records as JSON (the JSON binding's answers), driven by the same generated schema
 * metadata as the XML serializer (src/xml/records.ts): members in the schema's field order, every
 * field present, nil and absent values `null`, lists (empty ones too) arrays, dateTimes as ASP.NET
 * wrote them (`"\/Date(ms)\/"`, asp-net-date.ts). Written by hand, so decimals keep their stored
 * text.
 */
export class JsonRecordSerializer {
  record(record: RecordName, value: unknown): string {
    const object = value as Record<string, unknown>;
    let out = '{';
    let first = true;
    for (const field of RecordFields[record] as readonly FieldMeta[]) {
      out += `${first ? '' : ','}"${field.name}":${this.field(field, object[field.name])}`;
      first = false;
    }
    return `${out}}`;
  }

  list(record: RecordName, values: readonly unknown[]): string {
    let out = '[';
    for (let i = 0; i < values.length; i++) out += (i ? ',' : '') + (values[i] === null ? 'null' : this.record(record, values[i]));
    return `${out}]`;
  }

  /** ASMX ScriptService's answer: the result under `d`. */
  answer(record: RecordName, list: boolean, data: unknown): string {
    return `{"d":${list ? this.list(record, data as unknown[]) : this.record(record, data)}}`;
  }

  private field(field: FieldMeta, value: unknown): string {
    if (value === undefined || value === null) return 'null';
    if (field.kind === 'simple') return SIMPLE[field.type](value);
    if (field.kind === 'record') return this.record(field.type, value);
    return this.list(field.type, value as unknown[]);
  }
}
