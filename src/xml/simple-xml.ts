// A fast reader for the plain XML that nearly every SOAP client sends. It reads only a strict
// subset of XML, and only what saxes (the full parser, src/xml/envelope.ts) reads the same way:
// for anything else it gives up, and the caller parses the document with saxes, which accepts or
// refuses it as before. test/simple-xml.test.ts holds the two readers to the same answers.
//
// Kept by measurement (issue 21 asked for one reader): with saxes alone, `npm run bench -- --dataset
// scale10 --duration 5 --rounds 3 --skip-compression` at the defaults gave cached SOAP 1.1
// GetMonster 0.279x the raw server (0.252-0.301; by CPU per request 0.174), against 0.419x
// (0.407-0.441; by CPU 0.264) with this reader in front, back to back on a quiet 2-core machine,
// and a profile put saxes at 12% of the workers' busy CPU (issue 18's target is 0.5x).

/** What a reader reports, in document order (element names resolved against the namespaces in scope). */
export interface XmlEvents {
  open(local: string, uri: string, attributes: readonly XmlAttribute[]): void;
  /** Character data directly inside the innermost open element (entities expanded). */
  text(text: string): void;
  close(): void;
}

export interface XmlAttribute {
  local: string;
  uri: string;
  value: string;
}

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

// Outside the subset: CR (saxes normalizes line ends), control characters, surrogates (characters
// beyond the BMP), U+FFFE and U+FFFF.
const OUTSIDE_CHARS = /[^\t\n\x20-\uD7FF\uE000-\uFFFD]/;
// XML 1.0 only (a declared 1.1 changes saxes's character rules), in saxes's order of pseudo-attributes.
const DECL = /^<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(["'])1\.0\1(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(["'])[A-Za-z][A-Za-z0-9._-]*\2)?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(["'])(?:yes|no)\3)?[ \t\n]*\?>/;
const ENTITIES: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'",
});

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09;
// ASCII names only: letters and `_` to start, then letters, digits, `.`, `-`, `_`.
const isNameStart = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
const isNameChar = (c: number) => isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e;

/** A name as `prefix:local` (prefix '' when none); undefined for anything else. */
function splitName(xml: string, start: number, end: number): [string, string] | undefined {
  if (!isNameStart(xml.charCodeAt(start))) return undefined;
  let colon = -1;
  for (let i = start + 1; i < end; i++) {
    const c = xml.charCodeAt(i);
    if (c === 0x3a) {
      if (colon >= 0 || i + 1 >= end || !isNameStart(xml.charCodeAt(i + 1))) return undefined;
      colon = i;
    } else if (!isNameChar(c)) {
      return undefined;
    }
  }
  return colon < 0 ? ['', xml.slice(start, end)] : [xml.slice(start, colon), xml.slice(colon + 1, end)];
}

/** The end of a run of name characters (and colons) from `i`. */
function nameEnd(xml: string, i: number): number {
  let c = xml.charCodeAt(i);
  while (isNameChar(c) || c === 0x3a) c = xml.charCodeAt(++i);
  return i;
}

function skipSpaces(xml: string, i: number): number {
  while (isSpace(xml.charCodeAt(i))) i++;
  return i;
}

/** Character data with the predefined entities and character references expanded; undefined when it holds anything else. */
function characterData(raw: string): string | undefined {
  if (raw.includes(']]>')) return undefined;
  let amp = raw.indexOf('&');
  if (amp < 0) return raw;
  let out = '';
  let from = 0;
  while (amp >= 0) {
    const semi = raw.indexOf(';', amp + 1);
    if (semi < 0) return undefined;
    const name = raw.slice(amp + 1, semi);
    const expanded = ENTITIES[name] ?? characterReference(name);
    if (expanded === undefined) return undefined;
    out += raw.slice(from, amp) + expanded;
    from = semi + 1;
    amp = raw.indexOf('&', from);
  }
  return out + raw.slice(from);
}

function characterReference(name: string): string | undefined {
  let code: number;
  if (/^#x[0-9a-fA-F]{1,6}$/.test(name)) code = parseInt(name.slice(2), 16);
  else if (/^#[0-9]{1,7}$/.test(name)) code = parseInt(name.slice(1), 10);
  else return undefined;
  const isChar = code === 0x09 || code === 0x0a || code === 0x0d || (code >= 0x20 && code <= 0xd7ff)
    || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
  return isChar ? String.fromCodePoint(code) : undefined;
}

interface OpenElement {
  name: string;
  /** Namespace declarations on this element, by prefix ('' the default); undefined when none. */
  ns: Record<string, string> | undefined;
}

function resolve(prefix: string, own: Record<string, string> | undefined, open: OpenElement[]): string | undefined {
  const uri = own?.[prefix];
  if (uri !== undefined) return uri;
  for (let i = open.length - 1; i >= 0; i--) {
    const found = open[i].ns?.[prefix];
    if (found !== undefined) return found;
  }
  return prefix === 'xml' ? XML_NS : prefix === 'xmlns' ? XMLNS_NS : undefined;
}

/**
 * Reads `xml` into `events` when the whole document is in the subset: an optional XML 1.0
 * declaration, one root element, elements and attributes with ASCII names, quoted attribute values
 * without `&`, `<`, tabs or line breaks, character data with the five predefined entities and
 * character references, whitespace outside the root. No comment, CDATA section, DOCTYPE or
 * processing instruction, no carriage return, nothing saxes would refuse. Returns false otherwise
 * (the events so far are then meaningless), and also when an event handler throws.
 */
export function readSimpleXml(xml: string, events: XmlEvents): boolean {
  if (OUTSIDE_CHARS.test(xml)) return false;
  let i = 0;
  if (xml.startsWith('<?xml')) {
    const decl = DECL.exec(xml);
    if (!decl) return false;
    i = decl[0].length;
  }
  const n = xml.length;
  const open: OpenElement[] = [];
  let sawRoot = false;
  try {
    for (;;) {
      const lt = xml.indexOf('<', i);
      const end = lt < 0 ? n : lt;
      if (end > i) {
        if (open.length === 0) {
          if (skipSpaces(xml, i) < end) return false;
        } else {
          const text = characterData(xml.slice(i, end));
          if (text === undefined) return false;
          events.text(text);
        }
      }
      if (lt < 0) break;
      i = lt + 1;
      if (xml.charCodeAt(i) === 0x2f) {
        // A close tag: the innermost open element's name, exactly.
        const top = open.pop();
        const nameStop = nameEnd(xml, i + 1);
        if (!top || xml.slice(i + 1, nameStop) !== top.name) return false;
        i = skipSpaces(xml, nameStop);
        if (xml.charCodeAt(i) !== 0x3e) return false;
        i++;
        events.close();
        continue;
      }
      // An open tag (anything else after `<` is outside the subset).
      if (sawRoot && open.length === 0) return false;
      const nameStop = nameEnd(xml, i);
      const qname = splitName(xml, i, nameStop);
      if (!qname) return false;
      const name = xml.slice(i, nameStop);
      i = nameStop;
      const raw: [name: string, prefix: string, local: string, value: string][] = [];
      let ns: Record<string, string> | undefined;
      let selfClosing = false;
      for (;;) {
        const spaced = i;
        i = skipSpaces(xml, i);
        const c = xml.charCodeAt(i);
        if (c === 0x3e) {
          i++;
          break;
        }
        if (c === 0x2f) {
          if (xml.charCodeAt(i + 1) !== 0x3e) return false;
          i += 2;
          selfClosing = true;
          break;
        }
        if (i === spaced) return false;
        const attrStop = nameEnd(xml, i);
        const attr = splitName(xml, i, attrStop);
        if (!attr) return false;
        const attrName = xml.slice(i, attrStop);
        i = skipSpaces(xml, attrStop);
        if (xml.charCodeAt(i) !== 0x3d) return false;
        i = skipSpaces(xml, i + 1);
        const quote = xml[i];
        if (quote !== '"' && quote !== "'") return false;
        const close = xml.indexOf(quote, i + 1);
        if (close < 0) return false;
        const value = xml.slice(i + 1, close);
        if (/[&<\t\n]/.test(value)) return false;
        i = close + 1;
        const [prefix, local] = attr;
        if (prefix === 'xmlns' || attrName === 'xmlns') {
          const declared = prefix === 'xmlns' ? local : '';
          const uri = value.trim();
          if (declared === 'xml' || declared === 'xmlns' || uri === XML_NS || uri === XMLNS_NS || (declared !== '' && uri === '')) return false;
          ns ??= Object.create(null) as Record<string, string>;
          ns[declared] = uri;
        }
        raw.push([attrName, prefix, local, value]);
      }
      const [prefix, local] = qname;
      if (prefix === 'xmlns') return false;
      const uri = resolve(prefix, ns, open) ?? '';
      if (prefix !== '' && uri === '') return false;
      const attributes: XmlAttribute[] = [];
      if (raw.length > 0) {
        const seen = new Set<string>();
        for (const [attrName, attrPrefix, attrLocal, value] of raw) {
          let attrUri: string | undefined;
          let key: string;
          if (attrPrefix === '') {
            attrUri = attrName === 'xmlns' ? XMLNS_NS : '';
            key = attrName;
          } else {
            attrUri = resolve(attrPrefix, ns, open);
            if (attrUri === undefined) return false;
            key = `{${attrUri}}${attrLocal}`;
          }
          if (seen.has(key)) return false;
          seen.add(key);
          attributes.push({ local: attrLocal, uri: attrUri, value });
        }
      }
      sawRoot = true;
      events.open(local, uri, attributes);
      if (selfClosing) events.close();
      else open.push({ name, ns });
    }
  } catch {
    return false;
  }
  return sawRoot && open.length === 0;
}
