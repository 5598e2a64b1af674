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
// ASCII names only: letters and `_` to start, then letters, digits, `.`, `-`, `_`. A table, because
// names are most of what is scanned.
const NAME_START = 1;
const NAME_CHAR = 2;
const NAME_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const start = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
  NAME_CLASS[c] = (start ? NAME_START | NAME_CHAR : 0) | ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e ? NAME_CHAR : 0);
}
const isNameStart = (c: number) => c < 128 && (NAME_CLASS[c] & NAME_START) !== 0;

/** Where the name nameEnd last scanned has its colon: -1 when none, -2 when more than one. */
let scannedColon = -1;

/** The end of a run of name characters and colons from `i` (see scannedColon). */
function nameEnd(xml: string, i: number): number {
  let colon = -1;
  for (;;) {
    const c = xml.charCodeAt(i);
    if (c < 128 && (NAME_CLASS[c] & NAME_CHAR) !== 0) i++;
    else if (c === 0x3a) colon = colon === -1 ? i++ : (i++, -2);
    else break;
  }
  scannedColon = colon;
  return i;
}

/**
 * The colon of the name `xml[start, end)` just scanned by nameEnd (-1 when it has none), or -2
 * when it is not a name of the subset (`prefix:local`, each part starting with a name start).
 */
function colonOf(xml: string, start: number, end: number): number {
  const colon = scannedColon;
  if (start >= end || !isNameStart(xml.charCodeAt(start)) || colon === -2) return -2;
  if (colon >= 0 && (colon + 1 >= end || !isNameStart(xml.charCodeAt(colon + 1)))) return -2;
  return colon;
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

/**
 * The namespace declarations in scope, innermost last: the first `inScope` declared prefixes ('' the
 * default) and their URIs, side by side. An element's declarations are added when its start tag
 * is read and dropped when it closes (the count goes back; the arrays are not shortened, which
 * costs more than the whole scan).
 */
function resolve(prefix: string, prefixes: string[], uris: string[], inScope: number): string | undefined {
  for (let i = inScope - 1; i >= 0; i--) {
    if (prefixes[i] === prefix) return uris[i];
  }
  return prefix === 'xml' ? XML_NS : prefix === 'xmlns' ? XMLNS_NS : undefined;
}

/** Whether `xml[start, end)` holds `&`, `<`, a tab or a line break (outside the subset in an attribute value). */
function hasAttrSpecial(xml: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = xml.charCodeAt(i);
    if (c === 0x26 || c === 0x3c || c === 0x09 || c === 0x0a) return true;
  }
  return false;
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
  // The open elements' names, and where each one's declarations start in `prefixes`/`uris`.
  const openNames: string[] = [];
  const openScopes: number[] = [];
  const prefixes: string[] = [];
  const uris: string[] = [];
  let inScope = 0;
  // One start tag's attributes: the first `attrCount` names, colons (in the name, -1 when none) and values.
  const attrNames: string[] = [];
  const attrColons: number[] = [];
  const attrValues: string[] = [];
  let sawRoot = false;
  try {
    for (;;) {
      const lt = xml.indexOf('<', i);
      const end = lt < 0 ? n : lt;
      if (end > i) {
        if (openNames.length === 0) {
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
        const top = openNames.pop();
        const nameStop = nameEnd(xml, i + 1);
        if (top === undefined || nameStop - i - 1 !== top.length || !xml.startsWith(top, i + 1)) return false;
        inScope = openScopes.pop()!;
        i = skipSpaces(xml, nameStop);
        if (xml.charCodeAt(i) !== 0x3e) return false;
        i++;
        events.close();
        continue;
      }
      // An open tag (anything else after `<` is outside the subset).
      if (sawRoot && openNames.length === 0) return false;
      const nameStart = i;
      const nameStop = nameEnd(xml, i);
      const colon = colonOf(xml, nameStart, nameStop);
      if (colon === -2) return false;
      const scope = inScope;
      i = nameStop;
      let attrCount = 0;
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
        const attrStart = i;
        const attrStop = nameEnd(xml, i);
        const attrColon = colonOf(xml, attrStart, attrStop);
        if (attrColon === -2) return false;
        const attrName = xml.slice(attrStart, attrStop);
        i = skipSpaces(xml, attrStop);
        if (xml.charCodeAt(i) !== 0x3d) return false;
        i = skipSpaces(xml, i + 1);
        const quote = xml.charCodeAt(i);
        if (quote !== 0x22 && quote !== 0x27) return false;
        const close = xml.indexOf(quote === 0x22 ? '"' : "'", i + 1);
        if (close < 0 || hasAttrSpecial(xml, i + 1, close)) return false;
        const value = xml.slice(i + 1, close);
        i = close + 1;
        const declares = attrColon < 0 ? attrName === 'xmlns' : attrColon - attrStart === 5 && xml.startsWith('xmlns', attrStart);
        if (declares) {
          const declared = attrColon < 0 ? '' : xml.slice(attrColon + 1, attrStop);
          const uri = value.trim();
          if (declared === 'xml' || declared === 'xmlns' || uri === XML_NS || uri === XMLNS_NS || (declared !== '' && uri === '')) return false;
          prefixes[inScope] = declared;
          uris[inScope++] = uri;
        }
        attrNames[attrCount] = attrName;
        attrColons[attrCount] = attrColon < 0 ? -1 : attrColon - attrStart;
        attrValues[attrCount++] = value;
      }
      const name = xml.slice(nameStart, nameStop);
      const prefix = colon < 0 ? '' : name.slice(0, colon - nameStart);
      if (prefix === 'xmlns') return false;
      const uri = resolve(prefix, prefixes, uris, inScope) ?? '';
      if (prefix !== '' && uri === '') return false;
      const attributes: XmlAttribute[] = [];
      for (let a = 0; a < attrCount; a++) {
        const attrName = attrNames[a];
        const at = attrColons[a];
        let attribute: XmlAttribute;
        if (at < 0) {
          attribute = { local: attrName, uri: attrName === 'xmlns' ? XMLNS_NS : '', value: attrValues[a] };
        } else {
          const attrUri = resolve(attrName.slice(0, at), prefixes, uris, inScope);
          if (attrUri === undefined) return false;
          attribute = { local: attrName.slice(at + 1), uri: attrUri, value: attrValues[a] };
        }
        // The same expanded name twice (few attributes: a scan is cheaper than a set).
        for (const other of attributes) {
          if (other.local === attribute.local && other.uri === attribute.uri) return false;
        }
        attributes.push(attribute);
      }
      sawRoot = true;
      events.open(colon < 0 ? name : name.slice(colon - nameStart + 1), uri, attributes);
      if (selfClosing) {
        inScope = scope;
        events.close();
      } else {
        openNames.push(name);
        openScopes.push(scope);
      }
    }
  } catch {
    return false;
  }
  return sawRoot && openNames.length === 0;
}
