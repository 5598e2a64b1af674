// Characters XML 1.0 cannot carry even escaped: replaced so a document is always well-formed.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const TEXT = /[&<>\r]/g;
const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

// Anything either replacement would touch (lone surrogates are told apart only after this test).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SPECIAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF&<>\r]/;

/** Escapes text content. */
export function escapeText(s: string): string {
  // Most names and descriptions need nothing: one test instead of two replacements.
  if (!SPECIAL.test(s)) return s;
  return s.replace(INVALID, '\uFFFD').replace(TEXT, (c) => TEXT_ESCAPES[c]);
}

/** Escapes a double-quoted attribute value. */
export function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}
