// The WSDL files, the checks that guard them, and the types generated from them.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import {
  RULES,
  XMLLINT_MISSING,
  checkSharedTypes,
  checkWsdlModel,
  checkLegacyForms,
  checkWsdlText,
  formatProblem,
  xmllintCheck,
  xmllintVersion,
} from '../scripts/check-wsdl';
import { OUTPUT, generate } from '../scripts/generate-types';
import { WSDL_DIR, WSDL_FILES, loadServiceWsdls, readWsdl } from '../scripts/wsdl/model';
import { ENDPOINTS } from '../src/wsdl/endpoints';
import { WsdlDocuments } from '../src/wsdl/documents';
import { Operations, RecordFields } from '../src/generated/records';
import { startWithoutDatabase, type PagesService } from './support/app-without-db';
import { descendants, parseXml } from './support/xml-tree';
import { inCi, need } from './support/needs';

const models = loadServiceWsdls();
const wsdlText = (f: string): string => fs.readFileSync(path.join(WSDL_DIR, f), 'utf8');

function replaceOnce(text: string, from: string, to: string): string {
  const i = text.indexOf(from);
  if (i < 0) throw new Error(`test setup: "${from}" not found`);
  return text.slice(0, i) + to + text.slice(i + from.length);
}

describe('the four WSDL files', () => {
  test('pass every rule (references, WS-I Basic Profile, service conventions)', () => {
    expect(models.flatMap((m) => checkWsdlModel(m)).map((p) => formatProblem(p))).toEqual([]);
  });

  test('pass every rule in the form served at <path>?wsdl, without the typed fault', () => {
    expect(checkLegacyForms().map((p) => formatProblem(p))).toEqual([]);
  });

  test('declare shared types, elements and messages identically', () => {
    expect(checkSharedTypes(models).map((p) => formatProblem(p))).toEqual([]);
    // and they really are shared: Description and ServiceError are in several files
    const declaring = (name: string): string[] => models.filter((m) => m.schemas[0].complexTypes.has(name)).map((m) => path.basename(m.file));
    expect(declaring('Description')).toEqual(['weapons.wsdl', 'item.wsdl', 'hunting.wsdl']);
    expect(declaring('ServiceError')).toEqual([...WSDL_FILES]);
  });

  test('hold the operations of the interface spec, with parameters in order', () => {
    const ops = Operations.map((o) => `${o.path} ${o.name}(${o.params.map((p) => `${p.name}:${p.type}`).join(', ')}) -> ${o.result.list ? `${o.result.record}[]` : o.result.record}`);
    expect(ops).toEqual([
      '/api/weapons.asmx GetWeapons(DevID:int, DevKey:string, SearchWord:string) -> Weapon[]',
      '/api/item.asmx FindItems(DevID:int, DevKey:string, SearchWord:string) -> Item[]',
      '/API/hunting.asmx GetMonsters(DevID:int, DevKey:string, SearchWord:string) -> Monster[]',
      '/API/hunting.asmx GetMonster(DevID:int, DevKey:string, MonsterID:int) -> Monster',
      '/API/hunting.asmx GetMonsterGlobals(DevID:int, DevKey:string, MonsterID:int, NumberOfGlobals:int) -> HuntingGlobal[]',
      '/API/hunting.asmx GetPlayerGlobals(DevID:int, DevKey:string, playerID:int, NumberOfGlobals:int) -> HuntingGlobal[]',
      '/API/hunting.asmx GetLandareaGlobals(DevID:int, DevKey:string, LandareaID:int) -> HuntingGlobal[]',
      '/api/auction.asmx GetAuctionCategories(DevID:int, DevKey:string) -> AuctionCategory[]',
    ]);
    expect(Operations.map((o) => o.result.httpRoot)).toEqual([
      'ArrayOfWeapon', 'ArrayOfItem', 'ArrayOfMonster', 'Monster',
      'ArrayOfHuntingGlobal', 'ArrayOfHuntingGlobal', 'ArrayOfHuntingGlobal', 'ArrayOfAuctionCategory',
    ]);
  });

  test('use the namespace placeholder only where the server substitutes it', () => {
    for (const f of WSDL_FILES) {
      const values = [...wsdlText(f).matchAll(/SVAPI[^"]*/g)].map((m) => m[0]);
      expect(new Set(values.filter((v) => v !== 'SVAPI' && !v.startsWith('SVAPI/')))).toEqual(new Set());
    }
  });
});

/** The three forms a namespace takes, and what an operation's soapAction starts with in each (CONTRACT §1). */
const NAMESPACE_FORMS = [
  { ns: 'http://tempuri.org/', actionPrefix: 'http://tempuri.org/' },
  { ns: 'http://example.com/svapi', actionPrefix: 'http://example.com/svapi/' },
  { ns: 'SVAPI', actionPrefix: 'SVAPI/' },
];
const SOAP11_BINDING_NS = 'http://schemas.xmlsoap.org/wsdl/soap/';
const SOAP12_BINDING_NS = 'http://schemas.xmlsoap.org/wsdl/soap12/';

describe.each(NAMESPACE_FORMS)('the WSDLs served with SVAPI_NAMESPACE=$ns', ({ ns, actionPrefix }) => {
  let svc: PagesService;
  beforeAll(async () => {
    svc = await startWithoutDatabase({ SVAPI_NAMESPACE: ns });
  });
  afterAll(async () => {
    await svc?.close();
  });

  test.each(ENDPOINTS.flatMap((e) => [[`${e.path}?wsdl`, e, 'legacy'], [`${e.path}?wsdl=faults`, e, 'faults']] as const))('%s: namespace everywhere, every soapAction by ASMX\'s rule, every rule but the placeholder\'s', async (url, e, form) => {
    const res = await request(svc.server).get(url);
    expect([res.status, res.headers['content-type']]).toEqual([200, 'text/xml; charset=utf-8']);
    const defs = parseXml(res.text).root;
    expect(defs.attributes.targetNamespace.value).toBe(ns);
    expect(defs.scope.tns).toBe(ns);
    const schemas = descendants(defs).filter((d) => d.local === 'schema');
    expect(schemas.map((d) => d.attributes.targetNamespace.value)).toEqual([ns]);
    const ops = Operations.filter((o) => o.path === e.path).map((o) => o.name);
    for (const bindingNs of [SOAP11_BINDING_NS, SOAP12_BINDING_NS]) {
      const actions = descendants(defs).filter((d) => d.uri === bindingNs && d.local === 'operation').map((d) => d.attributes.soapAction.value);
      expect(actions).toEqual(ops.map((op) => actionPrefix + op));
    }
    if (ns !== 'SVAPI') expect(res.text).not.toMatch(/"SVAPI[/"]/);
    const problems = checkWsdlText(res.text, `${e.name}.wsdl`, form).filter((p) => p.rule !== 'SVAPI-NAMESPACE');
    expect(problems.map((p) => formatProblem(p))).toEqual([]);
  });
});

describe('the served WSDL', () => {
  test('with the default namespace is the file on disk byte for byte, but for the addresses (?wsdl=faults) and the typed fault (?wsdl)', () => {
    const docs = new WsdlDocuments('SVAPI');
    // The lines of the typed fault in a file: each wsdl:fault (portType; SOAP 1.1 binding, three
    // lines), the fault message (three lines), the ServiceError element and its type.
    const typedFault = /\n *<wsdl:fault name="ServiceError" message="tns:ServiceErrorFault" \/>|\n *<wsdl:fault name="ServiceError">\n.*\n *<\/wsdl:fault>|\n *<wsdl:message name="ServiceErrorFault">\n.*\n *<\/wsdl:message>|\n *<s:element name="ServiceError" type="tns:ServiceError" \/>|\n *<s:complexType name="ServiceError">(\n.*){5}\n *<\/s:complexType>/g;
    for (const e of ENDPOINTS) {
      const file = wsdlText(e.wsdlFile).split('"http://localhost:8080/').join('"https://svc.test:8443/prefix/');
      expect(wsdlText(e.wsdlFile).split('"http://localhost:8080/').length).toBe(5);
      expect(docs.wsdl(e, 'https://svc.test:8443/prefix', 'faults')).toBe(file);
      const operations = Operations.filter((o) => o.path === e.path).length;
      expect(file.match(typedFault)).toHaveLength(2 * operations + 3);
      expect(docs.wsdl(e, 'https://svc.test:8443/prefix')).toBe(file.replace(typedFault, ''));
    }
  });

  test('carries any namespace and base URL exactly, markup, references, tabs and newlines included', () => {
    const ns = `urn:x"><s:schema>&amp;&foo;&#9;\t\n'`;
    const base = 'https://pub.test/a"b/<x>&amp;';
    const defs = parseXml(new WsdlDocuments(ns).wsdl(ENDPOINTS[2], base)).root;
    expect(defs.attributes.targetNamespace.value).toBe(ns);
    expect(defs.scope.tns).toBe(ns);
    const ops = descendants(defs).filter((d) => d.uri === SOAP11_BINDING_NS && d.local === 'operation');
    expect(ops[1].attributes.soapAction.value).toBe(`${ns}/GetMonster`);
    const addresses = descendants(defs).filter((d) => d.local === 'address').map((d) => d.attributes.location.value);
    expect(addresses).toEqual(Array(4).fill(`${base}/API/hunting.asmx`));
  });
});

describe('src/generated/records.ts', () => {
  test('is what the WSDLs give (else run `npm run generate:types`)', () => {
    const onDisk = fs.readFileSync(OUTPUT, 'utf8');
    if (onDisk !== generate()) throw new Error('src/generated/records.ts is out of date: run `npm run generate:types`');
  });

  test('lists the fields in the order of the spec, with CONTRACT §4 nillability', () => {
    const names = (r: keyof typeof RecordFields): string[] => RecordFields[r].map((f) => f.name);
    expect(names('Weapon')).toEqual([
      'WeaponID', 'WeaponName', 'Description', 'DamageTypes', 'MinHitLevel', 'MaxHitLevel', 'MinDmgLevel', 'MaxDmgLevel',
      'Weight', 'Range', 'ImpactRadius', 'AttacksMin', 'Decay', 'AmmoBurn', 'TTValue', 'MinTTValue', 'TotalUses',
      'SIBWeapon', 'HitProfession', 'DmgProfession', 'ItemID',
    ]);
    expect(names('HuntingGlobal')).toEqual(['Monster', 'TimeStamp', 'GlobalType', 'GlobalValue', 'Player', 'Landarea']);
    expect(names('ServiceError')).toEqual(['Code', 'Message', 'Parameter']);

    const nillable = Object.entries(RecordFields).flatMap(([r, fields]) =>
      (fields as readonly { name: string; nillable?: true }[]).filter((f) => f.nillable).map((f) => `${r}.${f.name}`),
    );
    expect(nillable.sort()).toEqual(['Item.Description', 'Landarea.Planet', 'Monster.Description', 'Planet.Description', 'Weapon.Description']);
    // minOccurs="1" nillable="true", as ASMX publishes them: always sent, nil or not.
    const alwaysSent = Object.entries(RecordFields).flatMap(([r, fields]) =>
      (fields as readonly { name: string; nillable?: true; optional?: true }[]).filter((f) => f.nillable && !f.optional).map((f) => `${r}.${f.name}`),
    );
    expect(alwaysSent.sort()).toEqual(nillable.sort());
    expect(RecordFields.Weapon[3]).toEqual({ name: 'DamageTypes', kind: 'list', type: 'DamageType', item: 'DamageType', optional: true });
    expect(RecordFields.Description.every((f) => 'optional' in f && f.optional)).toBe(true);
  });
});

describe('the checks report broken WSDLs', () => {
  const hunting = wsdlText('hunting.wsdl');
  const rulesFor = (text: string): string[] => [...new Set(checkWsdlText(text, 'broken.wsdl').map((p) => p.rule))].sort();

  const cases: Array<[string, (t: string) => string, string[]]> = [
    [
      'use="encoded" with an encodingStyle',
      (t) => replaceOnce(t, '<soap:body use="literal" />', '<soap:body use="encoded" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" />'),
      ['BP-R2706', 'NO-SOAP-ENCODING'],
    ],
    ['a soap:body without use', (t) => replaceOnce(t, '<soap12:body use="literal" />', '<soap12:body />'), ['BP-R2706']],
    [
      'two operations with the same body element',
      (t) => replaceOnce(t, '<wsdl:part name="parameters" element="tns:GetMonster" />', '<wsdl:part name="parameters" element="tns:GetMonsters" />'),
      ['BP-R2710'],
    ],
    ['an rpc-style operation', (t) => replaceOnce(t, '<soap:operation soapAction="SVAPI/GetMonster" style="document" />', '<soap:operation soapAction="SVAPI/GetMonster" style="rpc" />'), ['BP-R2705']],
    ['a body part declared by type', (t) => replaceOnce(t, 'element="tns:GetMonsterResponse"', 'type="tns:Monster"'), ['BP-R2204']],
    [
      'two parts in a document-literal body',
      (t) => replaceOnce(t, '<wsdl:part name="parameters" element="tns:GetMonster" />', '<wsdl:part name="parameters" element="tns:GetMonster" />\n    <wsdl:part name="more" element="tns:Monster" />'),
      ['BP-R2201'],
    ],
    ['a non-HTTP transport', (t) => replaceOnce(t, 'transport="http://schemas.xmlsoap.org/soap/http"', 'transport="http://example.org/smtp"'), ['BP-R2702']],
    ['a namespace on a document-literal body', (t) => replaceOnce(t, '<soap:body use="literal" />', '<soap:body use="literal" namespace="SVAPI" />'), ['BP-R2716']],
    ['a soap:fault whose name does not match', (t) => replaceOnce(t, '<soap:fault name="ServiceError" use="literal" />', '<soap:fault name="Error" use="literal" />'), ['BP-R2205']],
    ['a binding operation the portType lacks', (t) => replaceOnce(t, '<wsdl:operation name="GetMonsters">\n      <soap12:operation', '<wsdl:operation name="GetMonstersX">\n      <soap12:operation'), ['BP-R2718']],
    ['a message that does not resolve', (t) => replaceOnce(t, 'message="tns:GetMonsterSoapIn"', 'message="tns:NoSuchMessage"'), ['REF-MESSAGE']],
    ['a part element that does not resolve', (t) => replaceOnce(t, 'element="tns:GetMonsterResponse"', 'element="tns:Nope"'), ['REF-PART']],
    ['a schema type that does not resolve', (t) => replaceOnce(t, 'type="tns:Planet"', 'type="tns:Planett"'), ['REF-SCHEMA']],
    ['a port bound to nothing', (t) => replaceOnce(t, 'binding="tns:HuntingSoap12"', 'binding="tns:Nothing"'), ['REF-BINDING']],
    ['a wrong soapAction', (t) => replaceOnce(t, 'soapAction="SVAPI/GetMonsters"', 'soapAction="SVAPI/GetMonster"'), ['SOAP-ACTION']],
    ['the namespace in text', (t) => replaceOnce(t, '<wsdl:documentation>Returns', '<wsdl:documentation>SVAPI returns'), ['SVAPI-NAMESPACE']],
    ['an action-like value outside soapAction', (t) => replaceOnce(t, 'elementFormDefault="qualified"', 'elementFormDefault="qualified" id="SVAPI/schema"'), ['SVAPI-NAMESPACE']],
    ['a field that is nillable against CONTRACT §4', (t) => replaceOnce(t, 'name="GlobalValue" type="s:int"', 'name="GlobalValue" nillable="true" type="s:int"'), ['CONTRACT-NILLABLE']],
    ['an int field that may be absent', (t) => replaceOnce(t, '<s:element minOccurs="1" maxOccurs="1" name="GlobalValue"', '<s:element minOccurs="0" maxOccurs="1" name="GlobalValue"'), ['CONTRACT-OCCURS']],
    ['an HTTP GET binding without urlEncoded input', (t) => replaceOnce(t, '<http:urlEncoded />', ''), ['HTTP-BINDING']],
    [
      'a fault bound in the SOAP 1.2 binding (Axis 1.4 refuses soap12:fault)',
      (t) => replaceOnce(t, '<soap12:body use="literal" />\n      </wsdl:output>', '<soap12:body use="literal" />\n      </wsdl:output>\n      <wsdl:fault name="ServiceError">\n        <soap12:fault name="ServiceError" use="literal" />\n      </wsdl:fault>'),
      ['SOAP12-NO-FAULT'],
    ],
    ['a SOAP operation without the ServiceError fault', (t) => replaceOnce(t, '<wsdl:fault name="ServiceError" message="tns:ServiceErrorFault" />', ''), ['BP-R2718', 'SVAPI-FAULT']],
    [
      'a nil-able member that may be absent (JAXB would map it to JAXBElement)',
      (t) => replaceOnce(t, '<s:element minOccurs="1" maxOccurs="1" name="Planet" nillable="true"', '<s:element minOccurs="0" maxOccurs="1" name="Planet" nillable="true"'),
      ['CONTRACT-OCCURS'],
    ],
    ['a duplicate message', (t) => replaceOnce(t, '<wsdl:message name="GetMonsterSoapOut">', '<wsdl:message name="GetMonsterSoapIn">'), ['WSDL-UNIQUE']],
    ['XML that is not well-formed', (t) => replaceOnce(t, '</wsdl:types>', '</wsdl:typos>'), ['XML']],
  ];

  test.each(cases)('%s', (_name, mutate, expected) => {
    const rules = rulesFor(mutate(hunting));
    for (const r of expected) expect(rules).toContain(r);
    for (const r of rules) expect(Object.keys(RULES)).toContain(r);
  });

  test('the form served at ?wsdl with a typed fault left in it', () => {
    const rules = (text: string) => [...new Set(checkWsdlText(text, 'broken.wsdl', 'legacy').map((p) => `${p.rule}:${p.line}`))];
    // The file itself: every fault, the fault message, the ServiceError element and type.
    const lines = hunting.split('\n');
    const at = (needle: string) => lines.map((l, i) => (l.includes(needle) ? `LEGACY-NO-FAULT:${i + 1}` : '')).filter(Boolean);
    expect(rules(hunting).sort()).toEqual([
      ...at('<wsdl:fault name="ServiceError"'), ...at('<wsdl:message name="ServiceErrorFault">'),
      ...at('<s:element name="ServiceError"'), ...at('<s:complexType name="ServiceError">'),
    ].sort());
    expect(at('<wsdl:fault name="ServiceError"')).toHaveLength(10);
    // The form served is clean (see 'pass every rule in the form served at <path>?wsdl').
    const served = new WsdlDocuments('SVAPI').wsdl(ENDPOINTS[2], 'http://localhost:8080');
    expect(rules(served)).toEqual([]);
    expect(rules(served.replace('</wsdl:output>\n    </wsdl:operation>', '</wsdl:output>\n      <wsdl:fault name="X" message="tns:GetMonsterSoapOut" />\n    </wsdl:operation>'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^LEGACY-NO-FAULT:/)]),
    );
  });

  test('a shared type that drifted in one file', () => {
    const item = replaceOnce(wsdlText('item.wsdl'), 'name="ItemPictureURL" type="s:string"', 'name="ItemPictureUrl" type="s:string"');
    const drifted = [...models];
    drifted[1] = readWsdl(item, path.join(WSDL_DIR, 'item.wsdl'));
    const problems = checkSharedTypes(drifted);
    expect(problems.map((p) => p.rule)).toEqual(['SHARED-TYPES']);
    expect(problems[0].message).toMatch(/complexType Description differs from its declaration in weapons\.wsdl/);
  });
});

describe('schema validation with xmllint', () => {
  const version = xmllintVersion();
  if (!version && !inCi) {
    test.skip(`skipped: ${XMLLINT_MISSING}`, () => undefined);
    console.warn(`test/wsdl.test.ts: schema validation SKIPPED: ${XMLLINT_MISSING}`);
    return;
  }

  test.each(WSDL_FILES.map((f) => [f]))('%s validates against the W3C schemas, its samples against its inline schema', (f) => {
    need(version !== null, XMLLINT_MISSING);
    expect(xmllintCheck(path.join(WSDL_DIR, f)).map((p) => formatProblem(p))).toEqual([]);
  });

  test('a schema-invalid WSDL and an invalid sample document are reported', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-wsdl-test-'));
    try {
      let t = wsdlText('hunting.wsdl');
      t = replaceOnce(t, '<soap:body use="literal" />', '<soap:body use="literally" />');
      t = replaceOnce(t, '<s:element name="GetMonster">', '<s:element nam="GetMonster">');
      const broken = path.join(tmp, 'hunting.wsdl');
      fs.writeFileSync(broken, t);
      const samples = path.join(tmp, 'samples');
      fs.mkdirSync(samples);
      const monster = fs.readFileSync(path.join(WSDL_DIR, 'samples', 'hunting', 'Monster.xml'), 'utf8');
      // fields out of order
      fs.writeFileSync(path.join(samples, 'Monster.xml'), replaceOnce(monster, '<MonsterName>Atrox Young</MonsterName>\n  <MonsterID>1</MonsterID>', '<MonsterID>1</MonsterID>\n  <MonsterName>Atrox Young</MonsterName>'));
      const wsdlProblems = xmllintCheck(broken, samples).map((p) => formatProblem(p)).join('\n');
      expect(wsdlProblems).toMatch(/hunting\.wsdl:\d+: \[XSD-VALID\].*'use'.*literally/);
      expect(wsdlProblems).toMatch(/hunting\.wsdl:\d+: \[XSD-VALID\].*attribute 'nam' is not allowed/);
      expect(wsdlProblems).toMatch(/hunting\.wsdl \(inline schema, extracted\):21: \[XSD-COMPILE\].*'name' is required/);

      const sampleProblems = xmllintCheck(path.join(WSDL_DIR, 'hunting.wsdl'), samples).map((p) => formatProblem(p)).join('\n');
      expect(sampleProblems).toMatch(/Monster\.xml:\d+: \[XSD-COMPILE\].*MonsterName.*not expected/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
