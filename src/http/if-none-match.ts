/**
 * Whether an If-None-Match header (RFC 9110 §13.1.2) names the entity tag `etag` (a strong tag,
 * quoted): `*`, or a list of tags of which one matches by the weak comparison (`W/"x"` matches
 * `"x"`). A GET whose If-None-Match matches is answered 304.
 */
export function noneMatchNames(header: string, etag: string): boolean {
  if (header === etag) return true;
  const end = header.length;
  let i = 0;
  while (i < end) {
    const c = header.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x2c) {
      i++;
      continue;
    }
    if (c === 0x2a) return header.trim() === '*'; // `*` stands alone
    if (c === 0x57 && header.charCodeAt(i + 1) === 0x2f) i += 2; // `W/`
    if (header.charCodeAt(i) !== 0x22) return false; // not an entity tag: the header is malformed
    const close = header.indexOf('"', i + 1);
    if (close < 0) return false;
    if (close + 1 - i === etag.length && header.startsWith(etag, i)) return true;
    i = close + 1;
  }
  return false;
}
