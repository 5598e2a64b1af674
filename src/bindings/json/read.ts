import { errors } from '../../errors';

/** Nesting deeper than this is BadRequest, as for XML (CONTRACT §8). */
const JSON_MAX_DEPTH = 32;
/** More members than this in the parameter object is BadRequest: no operation has more than four parameters. */
const JSON_MAX_MEMBERS = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

interface JsonParams {
  /** Members of the parameter object, without prototype. */
  values: Record<string, unknown>;
  /** Member names given more than once (JSON.parse would keep only the last). */
  repeated: string[];
}

/**
 * Reads a request body as one JSON object of parameters: before JSON.parse sees it, one pass
 * bounds its nesting and its number of members and notes member names given twice. Anything that
 * is not a JSON object is BadRequest. An empty body is an empty object.
 */
export function readJsonParams(text: string): JsonParams {
  if (text.trim() === '') return { values: Object.create(null), repeated: [] };
  const names = memberNames(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.badRequest('The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw errors.badRequest('The request body must be a JSON object of parameters.');
  }
  if (names.length > JSON_MAX_MEMBERS) throw errors.badRequest(`The parameter object has more than ${JSON_MAX_MEMBERS} members.`);
  const values: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries(value)) values[k] = v;
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const raw of names) {
    const name = JSON.parse(raw) as string;
    if (seen.has(name)) repeated.push(name);
    seen.add(name);
  }
  return { values, repeated };
}

/** The raw (still quoted) member names of the top-level object; throws when nesting is too deep. */
function memberNames(text: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      if (depth === 1 && expectName) {
        names.push(text.slice(start, i + 1));
        expectName = false;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > JSON_MAX_DEPTH) throw errors.badRequest(`The JSON is nested deeper than ${JSON_MAX_DEPTH} levels.`);
      if (depth === 1) expectName = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    } else if (c === COMMA && depth === 1) {
      expectName = true;
    }
  }
  return names;
}
