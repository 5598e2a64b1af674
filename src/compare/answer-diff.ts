import { attrKey, XSI_NS, type XmlNode } from './xml-tree';
import type { Contract } from './wsdl-contract';

// Two answers compared as a client reads them: element names by namespace and local name (the
// prefixes and where namespaces are declared do not matter; the service namespace of either side
// counts as the same), whitespace between elements ignored, leaf values by the schema's type
// (decimals by value, dateTimes by instant, booleans and ints by value, strings exactly), nil and
// absent told apart, and list order significant.

export interface AnswerDifference {
  /** `/Envelope/Body/GetMonstersResponse/GetMonstersResult/Monster[3]/MonsterName` */
  path: string;
  /** The local names along the path, without positions. */
  names: string[];
  what: 'value' | 'nil' | 'element' | 'attribute' | 'only in legacy' | 'only in svapi';
  legacy: string;
  svapi: string;
}

/** The service namespace of a side, read as one token so that the two sides' namespaces compare equal. */
const TNS = '{service namespace}';

interface DiffOptions {
  legacyNs: string;
  svapiNs: string;
  /** Schemas to read element types from, the first that knows an element wins. */
  schemas: readonly Contract[];
  /** Most differences to collect. */
  limit?: number;
}

export function diffAnswers(legacy: XmlNode, svapi: XmlNode, opts: DiffOptions): AnswerDifference[] {
  return new AnswerComparison(opts).run(legacy, svapi);
}

class AnswerComparison {
  readonly out: AnswerDifference[] = [];
  private readonly limit: number;

  constructor(private readonly opts: DiffOptions) {
    this.limit = opts.limit ?? 20;
  }

  run(legacy: XmlNode, svapi: XmlNode): AnswerDifference[] {
    this.node(legacy, svapi, `/${legacy.local}`, [], undefined);
    return this.out;
  }

  private uri(node: XmlNode, side: 'legacy' | 'svapi'): string {
    return node.uri === (side === 'legacy' ? this.opts.legacyNs : this.opts.svapiNs) ? TNS : node.uri;
  }

  private add(d: AnswerDifference): void {
    if (this.out.length < this.limit) this.out.push(d);
  }

  /** The type of an element: its field's type inside `parentType`, or its global element's. */
  private typeOf(local: string, uri: string, parentType: string | undefined): string | undefined {
    for (const schema of this.opts.schemas) {
      if (parentType && !parentType.startsWith('s:')) {
        const f = schema.types.get(parentType)?.find((x) => x.name === local);
        if (f) return f.type;
      } else if (uri === TNS) {
        const e = schema.elements.get(local);
        if (e) return e.type;
      }
    }
    return undefined;
  }

  private node(l: XmlNode, s: XmlNode, path: string, names: string[], parentType: string | undefined): void {
    const lu = this.uri(l, 'legacy');
    const su = this.uri(s, 'svapi');
    const here = [...names, l.local];
    if (l.local !== s.local || lu !== su) {
      this.add({ path, names: here, what: 'element', legacy: qname(lu, l.local), svapi: qname(su, s.local) });
      return;
    }
    const type = this.typeOf(l.local, lu, parentType);
    const lnil = isNil(l);
    const snil = isNil(s);
    if (lnil !== snil) {
      this.add({ path, names: here, what: 'nil', legacy: lnil ? 'nil' : describe(l), svapi: snil ? 'nil' : describe(s) });
      return;
    }
    for (const key of new Set([...l.attributes.keys(), ...s.attributes.keys()])) {
      if (key === attrKey(XSI_NS, 'nil')) continue;
      const a = l.attributes.get(key);
      const b = s.attributes.get(key);
      if (a !== b) this.add({ path: `${path}/@${key}`, names: here, what: 'attribute', legacy: a ?? '(absent)', svapi: b ?? '(absent)' });
    }
    const complex = l.children.length > 0 || s.children.length > 0 || (type !== undefined && !type.startsWith('s:'));
    if (!complex) {
      if (!sameValue(l.text, s.text, type)) this.add({ path, names: here, what: 'value', legacy: show(l.text), svapi: show(s.text) });
      return;
    }
    if (l.text.trim() !== s.text.trim()) this.add({ path, names: here, what: 'value', legacy: show(l.text.trim()), svapi: show(s.text.trim()) });
    this.children(l, s, path, here, type);
  }

  private children(l: XmlNode, s: XmlNode, path: string, names: string[], type: string | undefined): void {
    const pairs = align(l.children, s.children, (n, side) => this.canonical(n, side, type));
    const counts = new Map<string, number>();
    for (const c of [...l.children, ...s.children]) counts.set(c.local, (counts.get(c.local) ?? 0) + 1);
    const position = { legacy: new Map<string, number>(), svapi: new Map<string, number>() };
    const step = (side: 'legacy' | 'svapi', n: XmlNode) => {
      const i = (position[side].get(n.local) ?? 0) + 1;
      position[side].set(n.local, i);
      return i;
    };
    for (const [a, b] of pairs) {
      if (this.out.length >= this.limit) return;
      const ia = a && step('legacy', a);
      const ib = b && step('svapi', b);
      const n = (a ?? b)!;
      // Positions are shown where a name repeats (the records of a list).
      const repeated = (counts.get(n.local) ?? 0) > 2;
      const at = (i: number | undefined) => `${path}/${n.local}${repeated && i ? `[${i}]` : ''}`;
      if (a && b) this.node(a, b, at(ia), names, type);
      else if (a) this.add({ path: at(ia), names: [...names, n.local], what: 'only in legacy', legacy: describe(a), svapi: '(absent)' });
      else this.add({ path: at(ib), names: [...names, n.local], what: 'only in svapi', legacy: '(absent)', svapi: describe(b!) });
    }
  }

  /** A subtree as normalised text: two subtrees a client reads the same way give the same text. */
  private canonical(n: XmlNode, side: 'legacy' | 'svapi', parentType: string | undefined): string {
    const uri = this.uri(n, side);
    const type = this.typeOf(n.local, uri, parentType);
    const attrs = [...n.attributes].filter(([k]) => k !== attrKey(XSI_NS, 'nil')).sort().map(([k, v]) => `${k}=${v}`).join(' ');
    const head = `<${qname(uri, n.local)} ${attrs}${isNil(n) ? ' nil' : ''}>`;
    if (!n.children.length && (type === undefined || type.startsWith('s:'))) return `${head}${normalValue(n.text, type)}`;
    return `${head}${n.text.trim()}${n.children.map((c) => this.canonical(c, side, type)).join('')}</>`;
  }
}

/**
 * Pairs the children of two elements in order: the longest run of equal children is kept in step
 * (so one missing record shows as one, not as every record after it), the children between are
 * paired by position, the rest left single. Leaves pair by position.
 */
function align(l: XmlNode[], s: XmlNode[], canonical: (n: XmlNode, side: 'legacy' | 'svapi') => string): [XmlNode | undefined, XmlNode | undefined][] {
  if (l.length === s.length && l.every((n) => !n.children.length)) return l.map((n, i) => [n, s[i]]);
  const a = l.map((n) => canonical(n, 'legacy'));
  const b = s.map((n) => canonical(n, 'svapi'));
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const matches = longestCommon(a.slice(start, endA), b.slice(start, endB)).map(([i, j]) => [i + start, j + start]);
  const pairs: [XmlNode | undefined, XmlNode | undefined][] = [];
  for (let i = 0; i < start; i++) pairs.push([l[i], s[i]]);
  let i = start;
  let j = start;
  const gap = (toI: number, toJ: number) => {
    for (const [x, y] of pairSimilar(l.slice(i, toI), s.slice(j, toJ))) pairs.push([x === undefined ? undefined : l[i + x], y === undefined ? undefined : s[j + y]]);
    i = toI;
    j = toJ;
  };
  for (const [mi, mj] of matches) {
    gap(mi, mj);
    pairs.push([l[i++], s[j++]]);
  }
  gap(endA, endB);
  for (let k = 0; k < a.length - endA; k++) pairs.push([l[endA + k], s[endB + k]]);
  return pairs;
}

/**
 * The children between two runs of equal ones: of the same number, paired by position (records
 * changed in place); otherwise paired in order where most of their values agree (the same record,
 * changed), the rest left single (records only one side has).
 */
function pairSimilar(l: XmlNode[], s: XmlNode[]): [number | undefined, number | undefined][] {
  if (l.length === s.length) return l.map((_, k) => [k, k]);
  if (!l.length || !s.length || l.length * s.length > 10_000) {
    return Array.from({ length: Math.max(l.length, s.length) }, (_, k) => [k < l.length ? k : undefined, k < s.length ? k : undefined]);
  }
  const a = l.map((n) => leaves(n));
  const b = s.map((n) => leaves(n));
  const sim = (x: number, y: number) => {
    const other = new Set(b[y]);
    const same = a[x].filter((v) => other.has(v)).length;
    return same / Math.max(a[x].length, b[y].length, 1);
  };
  // Best total similarity of an ordered pairing, pairs only above one half.
  const w = s.length + 1;
  const best = new Float64Array((l.length + 1) * w);
  const score = l.map((_, x) => s.map((__, y) => sim(x, y)));
  for (let x = l.length - 1; x >= 0; x--) {
    for (let y = s.length - 1; y >= 0; y--) {
      const pair = score[x][y] > 0.5 ? score[x][y] + best[(x + 1) * w + y + 1] : -1;
      best[x * w + y] = Math.max(pair, best[(x + 1) * w + y], best[x * w + y + 1]);
    }
  }
  const out: [number | undefined, number | undefined][] = [];
  let x = 0;
  let y = 0;
  while (x < l.length && y < s.length) {
    if (score[x][y] > 0.5 && best[x * w + y] === score[x][y] + best[(x + 1) * w + y + 1]) out.push([x++, y++]);
    else if (best[x * w + y] === best[(x + 1) * w + y]) out.push([x++, undefined]);
    else out.push([undefined, y++]);
  }
  while (x < l.length) out.push([x++, undefined]);
  while (y < s.length) out.push([undefined, y++]);
  return out;
}

/** A subtree's leaves as `path=text`, for telling how alike two records are. */
function leaves(n: XmlNode, prefix = ''): string[] {
  const here = `${prefix}/${n.local}`;
  if (!n.children.length) return [`${here}=${isNil(n) ? '\u0000nil' : n.text.trim()}`];
  return n.children.flatMap((c) => leaves(c, here));
}

/** Index pairs of a longest common subsequence; beyond 4 million cells, none (pairing by position). */
function longestCommon(a: string[], b: string[]): [number, number][] {
  if (!a.length || !b.length || a.length * b.length > 4_000_000) return [];
  const w = b.length + 1;
  const t = new Uint16Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      t[i * w + j] = a[i] === b[j] ? t[(i + 1) * w + j + 1] + 1 : Math.max(t[(i + 1) * w + j], t[i * w + j + 1]);
    }
  }
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) out.push([i++, j++]);
    else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) i++;
    else j++;
  }
  return out;
}

const isNil = (n: XmlNode) => ['true', '1'].includes((n.attributes.get(attrKey(XSI_NS, 'nil')) ?? '').trim());

const qname = (uri: string, local: string) => (uri ? `{${uri}}${local}` : local);

function show(text: string): string {
  const t = JSON.stringify(text);
  return t.length > 80 ? `${t.slice(0, 77)}..."` : t;
}

/** An element shown in a difference: its text, or how many elements it holds. */
function describe(n: XmlNode): string {
  if (isNil(n)) return `<${n.local}> nil`;
  if (!n.children.length) return `<${n.local}> ${show(n.text)}`;
  const first = n.children.find((c) => !c.children.length && c.text.trim());
  return `<${n.local}> (${n.children.length} elements${first ? `, ${first.local} ${show(first.text)}` : ''})`;
}

/** Whether two leaf texts hold the same value of the schema type (strings exactly). */
function sameValue(a: string, b: string, type: string | undefined): boolean {
  return a === b || normalValue(a, type) === normalValue(b, type);
}

const INTEGER_TYPES = new Set(['s:int', 's:long', 's:short', 's:byte', 's:integer', 's:unsignedInt', 's:unsignedLong', 's:unsignedShort', 's:unsignedByte']);

/** A leaf's value in one spelling per value: a decimal or int by value, a dateTime by instant. */
function normalValue(text: string, type: string | undefined): string {
  if (type === 's:decimal' || (type && INTEGER_TYPES.has(type))) return decimalValue(text) ?? text;
  if (type === 's:dateTime') return instant(text) ?? text;
  if (type === 's:boolean') {
    const t = text.trim();
    return t === '1' ? 'true' : t === '0' ? 'false' : t;
  }
  if (type === 's:double' || type === 's:float') {
    const n = Number(text.trim());
    return text.trim() && !Number.isNaN(n) ? String(n) : text;
  }
  return text;
}

function decimalValue(text: string): string | undefined {
  const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/.exec(text);
  if (!m || (!m[2] && !m[3])) return undefined;
  const whole = m[2].replace(/^0+/, '') || '0';
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  const zero = whole === '0' && !fraction;
  return `${m[1] === '-' && !zero ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A dateTime with an offset as seconds since 1970 (UTC) with its fraction; without one, as written (no instant). */
function instant(text: string): string | undefined {
  const m = /^\s*(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?\s*$/.exec(text);
  if (!m) return undefined;
  const fraction = (m[7] ?? '').replace(/0+$/, '');
  if (!m[8]) return `local ${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${fraction ? `.${fraction}` : ''}`;
  const offset = m[8] === 'Z' ? 0 : (m[8][0] === '-' ? -1 : 1) * (Number(m[8].slice(1, 3)) * 60 + Number(m[8].slice(4, 6)));
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) - offset * 60_000;
  return `${ms / 1000}${fraction ? `.${fraction}` : ''}Z`;
}
