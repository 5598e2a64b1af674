/**
 * Parsers for the XML Schema value types the dataset and the request parameters share
 * (int, decimal, boolean) and for the dataset's timestamps. Each returns the value or a
 * reason that reads well after the name of the field: `Weight: "1e5" is not a decimal`.
 */
export type Parsed<T> = { value: T; error?: undefined } | { error: string; value?: undefined };

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

// XSD collapses whitespace (space, tab, CR, LF) around int, decimal and boolean lexical values.
const INT_RE = /^[ \t\r\n]*([+-]?)0*(\d+)[ \t\r\n]*$/;
const DECIMAL_RE = /^[ \t\r\n]*([+-]?)(\d*)(?:\.(\d*))?[ \t\r\n]*$/;
const XSD_WS_RE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

// Postgres `numeric` limits: digits before and after the decimal point.
const MAX_INTEGER_DIGITS = 131_072;
const MAX_FRACTION_DIGITS = 16_383;

/** Quotes a value for a message, cut short so a huge cell cannot flood the report. */
export function show(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** True for a number in XSD `int`'s range: an integer from -2^31 to 2^31 - 1 (a DevID). */
export function isXsdInt(n: number): boolean {
  return Number.isInteger(n) && n >= INT_MIN && n <= INT_MAX;
}

/** XSD `int`: optional sign, digits, surrounding whitespace; 32-bit signed range. */
export function parseXsdInt(text: string): Parsed<number> {
  // One to nine plain digits (every ID a caller sends, most cells a load reads) are in range: read
  // without the expression, its match and its substrings.
  const length = text.length;
  if (length > 0 && length < 10) {
    let value = 0;
    let i = 0;
    for (; i < length; i++) {
      const digit = text.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) break;
      value = value * 10 + digit;
    }
    if (i === length) return { value };
  }
  const m = INT_RE.exec(text);
  if (!m) return { error: `${show(text)} is not an int` };
  const digits = m[2];
  const n = digits.length > 10 ? Infinity : Number(digits);
  const value = m[1] === '-' ? -n : n;
  if (value < INT_MIN || value > INT_MAX) {
    return { error: `${show(text)} is out of the int range (${INT_MIN} to ${INT_MAX})` };
  }
  return { value: value === 0 ? 0 : value };
}

/**
 * XSD `decimal`: optional sign, digits with an optional fraction, no exponent. The value is
 * the text as written, only trimmed and without a leading `+`, so `2.50` stays `2.50`.
 */
export function parseXsdDecimal(text: string): Parsed<string> {
  const m = DECIMAL_RE.exec(text);
  const [, sign, integer, fraction] = m ?? [];
  if (!m || (integer === '' && !fraction)) return { error: `${show(text)} is not a decimal` };
  if (integer.length > MAX_INTEGER_DIGITS || (fraction?.length ?? 0) > MAX_FRACTION_DIGITS) {
    return { error: `${show(text)} has too many digits` };
  }
  return { value: `${sign === '-' ? '-' : ''}${integer}${fraction === undefined ? '' : `.${fraction}`}` };
}

/** XSD `boolean`: `true`, `false`, `1`, `0` (case-sensitive), surrounding whitespace allowed. */
export function parseXsdBoolean(text: string): Parsed<boolean> {
  switch (text.replace(XSD_WS_RE, '')) {
    case 'true':
    case '1':
      return { value: true };
    case 'false':
    case '0':
      return { value: false };
    default:
      return { error: `${show(text)} is not a boolean (true, false, 1 or 0)` };
  }
}

const TIMESTAMP_RE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * ISO 8601 date-time with a UTC offset or `Z` (a time without one would depend on the
 * loading session's time zone). The value is the text in a form Postgres reads exactly.
 */
export function parseTimestamp(text: string): Parsed<string> {
  const trimmed = text.trim();
  const m = TIMESTAMP_RE.exec(trimmed);
  const bad = { error: `${show(text)} is not an ISO 8601 date-time (like 2026-11-21T18:04:05Z)` };
  if (!m) return bad;
  const [, y, mo, d, h, mi, s, frac, z, offSign, offH, offM] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return bad;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) return bad;
  if (!z && !offSign) return { error: `${show(text)} has no UTC offset (add Z or an offset like +02:00)` };
  // XSD's range for an offset, which Postgres (up to 15:59) also reads.
  const offsetMinutes = Number(offH ?? 0) * 60 + Number(offM ?? 0);
  if (offSign && (Number(offM ?? 0) > 59 || offsetMinutes > 14 * 60)) return bad;
  const offset = z ? 'Z' : `${offSign}${offH}:${offM ?? '00'}`;
  return { value: `${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}${frac ?? ''}${offset}` };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
