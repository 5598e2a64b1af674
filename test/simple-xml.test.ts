// readSimpleXml (src/xml/simple-xml.ts) reads plain envelopes instead of saxes. Whatever it reads,
// saxes must read the same way (the same elements, namespaces, attributes and text) and without an
// error; whatever it does not read goes to saxes, so hostile input is refused as before.

import { SaxesParser } from 'saxes';
import { readSimpleXml, type XmlAttribute } from '../src/xml/simple-xml';
import { SoapEnvelopeReader } from '../src/xml/envelope';
import { SOAP11_NS, SOAP12_NS, XSD_NS, XSI_NS } from '../src/xml/vocabulary';

type Event = ['open', string, string, string] | ['text', string] | ['close'];

const attrs = (list: readonly XmlAttribute[]) => JSON.stringify(list.map((a) => [a.uri, a.local, a.value]).sort());

/** readSimpleXml's events (text merged, none outside the root), or undefined when it gives up. */
function simpleEvents(xml: string): Event[] | undefined {
  const events: Event[] = [];
  const ok = readSimpleXml(xml, {
    open: (local, uri, attributes) => events.push(['open', local, uri, attrs(attributes)]),
    text: (text) => events.push(['text', text]),
    close: () => events.push(['close']),
  });
  return ok ? merged(events) : undefined;
}

/** saxes's events, or the error it throws. */
function saxesEvents(xml: string): Event[] | Error {
  const events: Event[] = [];
  let depth = 0;
  const parser = new SaxesParser({ xmlns: true, position: false });
  parser.on('opentag', (t) => {
    depth++;
    events.push(['open', t.local, t.uri, attrs(Object.values(t.attributes))]);
  });
  const onText = (text: string) => {
    if (depth > 0) events.push(['text', text]);
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    depth--;
    events.push(['close']);
  });
  parser.on('doctype', () => { throw new Error('doctype'); });
  parser.on('processinginstruction', () => { throw new Error('processing instruction'); });
  try {
    parser.write(xml).close();
  } catch (e) {
    return e as Error;
  }
  return merged(events);
}

function merged(events: Event[]): Event[] {
  const out: Event[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (e[0] === 'text' && last?.[0] === 'text') last[1] += e[1];
    else if (e[0] !== 'text' || e[1] !== '') out.push([...e] as Event);
  }
  return out;
}

const DECL = '<?xml version="1.0" encoding="utf-8"?>';
const ops = '<DevID>12</DevID><DevKey>Ab-_9xYz</DevKey><MonsterID>1</MonsterID>';
/** Envelopes as clients write them: each must take the fast path. */
const PLAIN = [
  `${DECL}<soap:Envelope xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}" xmlns:soap="${SOAP11_NS}"><soap:Body><GetMonster xmlns="SVAPI">${ops}</GetMonster></soap:Body></soap:Envelope>`,
  `<?xml version='1.0' standalone='yes' ?>\n<env:Envelope xmlns:env="${SOAP12_NS}">\n  <env:Header/>\n  <env:Body>\n    <ns0:GetMonster xmlns:ns0="SVAPI">\n      <ns0:DevID>12</ns0:DevID>\n      <ns0:MonsterID xsi:nil="true" xmlns:xsi="${XSI_NS}"/>\n    </ns0:GetMonster>\n  </env:Body>\n</env:Envelope>\n`,
  `<s:Envelope xmlns:s="${SOAP11_NS}"><s:Body><tns:FindItems xmlns:tns="SVAPI"><tns:SearchWord>Fish &amp; Chips &lt;3 &#233;&#x20AC; &quot;x&apos; ]]&gt;</tns:SearchWord></tns:FindItems></s:Body></s:Envelope>`,
  `<Envelope xmlns="${SOAP11_NS}"><Body><GetWeapons xmlns="SVAPI"><SearchWord>Ñandú — 中文 ]] > ]</SearchWord><SearchWord/></GetWeapons></Body></Envelope>`,
  `<a:Envelope xmlns:a="${SOAP11_NS}" a:x = "1" y='2'><a:Body><GetMonster xmlns="SVAPI" xmlns:q="q"><q:DevID q:attr="v">1<b>x</b>2</q:DevID></GetMonster><Other/></a:Body></a:Envelope>`,
];

test('plain envelopes take the fast path and read exactly as saxes reads them', () => {
  for (const xml of PLAIN) {
    const simple = simpleEvents(xml);
    expect({ xml, fast: simple !== undefined }).toEqual({ xml, fast: true });
    expect(simple).toEqual(saxesEvents(xml));
  }
});

/** Documents the fast path must leave to saxes (which reads or refuses them as before). */
const ELSEWHERE = [
  `<!DOCTYPE x [<!ENTITY a "b">]>${PLAIN[0].slice(DECL.length)}`,
  PLAIN[0].replace('<GetMonster', '<?pi x?><GetMonster'),
  PLAIN[0].replace('<GetMonster', '<!-- c --><GetMonster'),
  PLAIN[0].replace('<DevID>12', '<DevID><![CDATA[12]]>'),
  PLAIN[0].replace('<DevID>12', '<DevID>&ext;'),
  PLAIN[0].replace('<DevID>12', '<DevID>1\r\n2'),
  PLAIN[0].replace(DECL, '<?xml version="1.1"?>'),
  PLAIN[0].replace(DECL, ` ${DECL}`),
  PLAIN[0].replace('<GetMonster', '<Get\u00e9Monster').replace('</GetMonster', '</Get\u00e9Monster'),
  PLAIN[0].replace('<GetMonster xmlns="SVAPI">', '<GetMonster xmlns="SVAPI" a="1" a="2">'),
  PLAIN[0].replace('<GetMonster xmlns="SVAPI">', '<p:GetMonster>'),
  PLAIN[0].replace('<DevID>12', '<DevID>]]>'),
  PLAIN[0].replace('<GetMonster xmlns="SVAPI">', '<GetMonster xmlns="SVAPI" xmlns:xml="x">'),
  `${PLAIN[0]}<extra/>`,
  `${PLAIN[0]}text`,
  PLAIN[0].slice(0, -5),
];

test('anything outside the subset is left to saxes', () => {
  for (const xml of ELSEWHERE) expect({ xml, fast: simpleEvents(xml) !== undefined }).toEqual({ xml, fast: false });
});

test('every one-character change of the plain envelopes: what the fast path reads, saxes reads the same way', () => {
  const inserts = ['<', '>', '&', '"', "'", ':', ' ', '\t', '\n', '\r', '/', '!', '?', '=', ']', ';', '#', 'x', '1', '-', '.', 'é', '\u0001', '\uD800', '\uFFFE'];
  let fast = 0;
  let checked = 0;
  for (const base of PLAIN) {
    for (let i = 0; i <= base.length; i++) {
      const variants = [base.slice(0, i) + base.slice(i + 1), ...inserts.flatMap((c) => [base.slice(0, i) + c + base.slice(i), base.slice(0, i) + c + base.slice(i + 1)])];
      for (const xml of variants) {
        const simple = simpleEvents(xml);
        checked++;
        if (simple === undefined) continue;
        fast++;
        const full = saxesEvents(xml);
        if (full instanceof Error || JSON.stringify(full) !== JSON.stringify(simple)) {
          expect({ xml, saxes: full instanceof Error ? full.message : full }).toEqual({ xml, saxes: simple });
        }
      }
    }
  }
  // The changes that keep a document plain (a letter in a text, a space in a tag) still take the fast path.
  expect(fast).toBeGreaterThan(checked / 20);
});

test('the reader answers the same through either path, and refuses as before', () => {
  const reader = new SoapEnvelopeReader();
  const viaSaxes = (xml: string) => `${xml}<!-- saxes -->`;
  const envelope = (body: string, ns = SOAP11_NS) => `${DECL}<soap:Envelope xmlns:soap="${ns}"><soap:Body>${body}</soap:Body></soap:Envelope>`;
  const read = (xml: string) => {
    try {
      return reader.read(xml, ['1.1']);
    } catch (e) {
      return (e as Error).message;
    }
  };
  const cases = [
    envelope(`<GetMonster xmlns="SVAPI">${ops}<MonsterID>2</MonsterID><X xsi:nil="1" xmlns:xsi="${XSI_NS}">a</X></GetMonster>`),
    envelope('<FindItems xmlns="SVAPI"><SearchWord>a &amp; b</SearchWord></FindItems><Second/>'),
    envelope(''),
    envelope('<GetMonster xmlns="SVAPI"/>', SOAP12_NS),
    envelope(`<GetMonster xmlns="SVAPI">${'<a>'.repeat(40)}${'</a>'.repeat(40)}</GetMonster>`),
    `<Envelope xmlns="${SOAP11_NS}"><Body><GetMonster/></Body></Envelope>`,
    `<Other xmlns="${SOAP11_NS}"/>`,
  ];
  for (const xml of cases) {
    expect(readSimpleXml(xml, { open() {}, text() {}, close() {} })).toBe(true);
    expect({ xml, answer: read(xml) }).toEqual({ xml, answer: read(viaSaxes(xml)) });
  }
});
