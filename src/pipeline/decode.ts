import { errors } from '../errors';
import { parseXsdInt as parseInt32 } from '../xsd/values';
import type { OperationName, OperationParams } from '../generated/records';
import type { Operation } from '../operations/catalog';
import type { RawParams } from '../operations/params';

/** XSD int (the loader's rule: sign, digits, surrounding whitespace, 32-bit), else undefined. */
export const parseXsdInt = (text: string): number | undefined => parseInt32(text).value;

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;

/**
 * Decodes text parameters (every binding delivers text) into the operation's typed parameters, or
 * throws. The specs come from the same WSDL as OperationParams (src/operations/catalog.ts), which
 * is what makes the one cast below hold.
 */
export function decodeParams<N extends OperationName>(op: Operation<N>, raw: RawParams): OperationParams[N] {
  const out: Record<string, number | string> = {};
  for (const spec of op.params) {
    const text = raw[spec.name];
    if (text === undefined) {
      if (spec.required) throw errors.missing(spec.name);
      out[spec.name] = '';
      continue;
    }
    if (spec.type === 'int') {
      const n = parseXsdInt(text);
      if (n === undefined) throw errors.invalid(spec.name, 'must be a 32-bit integer');
      if (spec.min !== undefined && n < spec.min) throw errors.invalid(spec.name, `must be at least ${spec.min}`);
      out[spec.name] = n;
    } else {
      const value = text.trim();
      // XML cannot carry these (so no SOAP caller can send them) and Postgres text cannot hold NUL.
      if (CONTROL.test(value)) throw errors.invalid(spec.name, 'contains a control character');
      if (spec.maxLength !== undefined && [...value].length > spec.maxLength) {
        throw errors.invalid(spec.name, `must be at most ${spec.maxLength} characters`);
      }
      out[spec.name] = value;
    }
  }
  return out as OperationParams[N];
}
