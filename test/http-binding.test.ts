// HTTP GET and HTTP POST (CONTRACT §3, §4, §7): the same records as SOAP 1.1 for the same input,
// bare documents valid against the served schema, every error as a <ServiceError> document with
// its status, path rules, and the addresses the WSDL publishes behind a proxy.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Req as Request } from '../src/http/exchange';
import { baseUrl } from '../src/http/base-url';
import { loadConfig } from '../src/config';
import { startWithoutDatabase } from './support/app-without-db';
import { envelope, SOAP11_NS as SOAP11, XML_DECL } from './support/bindings';
import { startService, type TestService } from './support/service';
import { child, descendants, parseXml, serialize, shape, type Shape, type XmlElement } from './support/xml-tree';
import { assertSchemaValid, checkSchemas } from './support/xmllint';

const NS = 'SVAPI';
const XML_TYPE = 'text/xml; charset=utf-8';
const FORM = 'application/x-www-form-urlencoded';

const PATHS = {
  GetWeapons: '/api/weapons.asmx',
  FindItems: '/api/item.asmx',
  GetMonsters: '/API/hunting.asmx',
  GetMonster: '/API/hunting.asmx',
  GetMonsterGlobals: '/API/hunting.asmx',
  GetPlayerGlobals: '/API/hunting.asmx',
  GetLandareaGlobals: '/API/hunting.asmx',
  GetAuctionCategories: '/api/auction.asmx',
} as const;
type Op = keyof typeof PATHS;
type Pairs = [string, string][];

const ROOTS: Record<Op, string> = {
  GetWeapons: 'ArrayOfWeapon',
  FindItems: 'ArrayOfItem',
  GetMonsters: 'ArrayOfMonster',
  GetMonster: 'Monster',
  GetMonsterGlobals: 'ArrayOfHuntingGlobal',
  GetPlayerGlobals: 'ArrayOfHuntingGlobal',
  GetLandareaGlobals: 'ArrayOfHuntingGlobal',
  GetAuctionCategories: 'ArrayOfAuctionCategory',
};

let svc: TestService;
let tmp: string;
const schemaFiles = new Map<string, string>();

beforeAll(async () => {
  // Many calls, some with bad credentials on purpose: limits high enough not to interfere.
  svc = await startService({ SVAPI_RATE_LIMIT: '100000', SVAPI_AUTH_FAIL_LIMIT: '100000' });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-http-'));
  for (const p of new Set(Object.values(PATHS))) {
    const res = await fetch(`${svc.url}${p}?wsdl`);
    expect(res.status).toBe(200);
    const schema = child(child(parseXml(await res.text()).root, 'types'), 'schema', 'http://www.w3.org/2001/XMLSchema');
    const file = path.join(tmp, `${p.replace(/\W+/g, '_')}.xsd`);
    fs.writeFileSync(file, serialize(schema));
    schemaFiles.set(p, file);
  }
});

// The documents a test queued for schema validation are checked when it ends (test/support/xmllint.ts).
afterEach(checkSchemas);
afterAll(async () => {
  await svc?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Calling the service

const credentials = (): Pairs => [['DevID', String(svc.key.devId)], ['DevKey', svc.key.devKey]];
const query = (pairs: Pairs) => new URLSearchParams(pairs).toString();

interface Answer {
  status: number;
  type: string | null;
  headers: Headers;
  text: string;
}

async function answer(res: Response): Promise<Answer> {
  return { status: res.status, type: res.headers.get('content-type'), headers: res.headers, text: await res.text() };
}

const httpGet = async (op: Op, pairs: Pairs, opPath = `${PATHS[op]}/${op}`) =>
  answer(await fetch(`${svc.url}${opPath}?${query(pairs)}`));

/** POST a form; `contentType` null sends none (the body as bytes, so fetch adds none either). */
const httpPost = async (op: Op, pairs: Pairs, contentType: string | null = FORM, opPath = `${PATHS[op]}/${op}`) =>
  answer(await fetch(`${svc.url}${opPath}`, {
    method: 'POST',
    headers: contentType === null ? {} : { 'Content-Type': contentType },
    body: new TextEncoder().encode(query(pairs)),
  }));

async function soap11(op: Op, pairs: Pairs) {
  return answer(await fetch(svc.url + PATHS[op], {
    method: 'POST',
    headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}/${op}"` },
    body: envelope('1.1', op, pairs, NS),
  }));
}

/** Throws with xmllint's report unless `xml` is valid against the schema served on `endpoint`. */
const validate = (endpoint: string, xml: string) =>
  assertSchemaValid(schemaFiles.get(endpoint)!, xml, `not valid against the schema served at ${endpoint}`);

/**
 * A successful HTTP answer: 200, text/xml; charset=utf-8, the declaration first, the expected
 * root in the namespace, every prefix declared (the parser refuses unbound ones), everything in
 * the namespace, valid against the served schema. Returns the root element.
 */
function document(op: Op, res: Answer): XmlElement {
  if (res.status !== 200) throw new Error(`${op} answered ${res.status}: ${res.text}`);
  expect(res.type).toBe(XML_TYPE);
  expect(res.text.startsWith(XML_DECL)).toBe(true);
  const root = parseXml(res.text).root;
  expect([root.local, root.uri]).toEqual([ROOTS[op], NS]);
  expect(descendants(root).filter((e) => e.uri !== NS).map((e) => e.name)).toEqual([]);
  validate(PATHS[op], res.text);
  return root;
}

/** The records (or, for GetMonster, the fields) inside the SOAP result. */
function soapShapes(op: Op, res: Answer): Shape[] {
  if (res.status !== 200) throw new Error(`SOAP ${op} answered ${res.status}: ${res.text}`);
  const envelope = parseXml(res.text).root;
  const result = child(child(child(envelope, 'Body', SOAP11), `${op}Response`, NS), `${op}Result`, NS);
  return result.children.map(shape);
}

interface ErrorDoc {
  status: number;
  code?: string;
  parameter?: string;
  message?: string;
}

/** An error answer: the ServiceError document in the namespace, with the XML content type. */
function serviceError(res: Answer): ErrorDoc {
  expect(res.type).toBe(XML_TYPE);
  expect(res.text.startsWith(XML_DECL)).toBe(true);
  const root = parseXml(res.text).root;
  expect([root.local, root.uri]).toEqual(['ServiceError', NS]);
  const text = (local: string) => root.children.find((c) => c.local === local)?.text;
  expect(root.children.map((c) => c.local)).toEqual(['Code', 'Message', ...(text('Parameter') !== undefined ? ['Parameter'] : [])]);
  return { status: res.status, code: text('Code'), parameter: text('Parameter'), message: text('Message') };
}

const soapFaultCode = (res: Answer) => {
  const envelope = parseXml(res.text).root;
  const fault = child(child(envelope, 'Body', SOAP11), 'Fault', SOAP11);
  return child(child(child(fault, 'detail'), 'ServiceError', NS), 'Code', NS).text;
};

// ---------------------------------------------------------------------------------------------
// The same records as SOAP 1.1

const IDS = ['1', '5', '107', '777001'];
const WORDS = ['', 'atrox', 'oil', ' Atrox ', '100%', 'Hart & Söhne', '<Unknown'];

const CASES: [Op, Pairs][] = [
  ...WORDS.map((w): [Op, Pairs] => ['GetWeapons', [['SearchWord', w]]]),
  ['GetWeapons', []],
  ...WORDS.map((w): [Op, Pairs] => ['FindItems', [['SearchWord', w]]]),
  ['FindItems', []],
  ...WORDS.map((w): [Op, Pairs] => ['GetMonsters', [['SearchWord', w]]]),
  ['GetMonsters', []],
  ...IDS.map((id): [Op, Pairs] => ['GetMonster', [['MonsterID', id]]]),
  ...IDS.map((id): [Op, Pairs] => ['GetMonsterGlobals', [['MonsterID', id], ['NumberOfGlobals', '7']]]),
  ['GetMonsterGlobals', [['MonsterID', '1'], ['NumberOfGlobals', '2000']]],
  ...IDS.map((id): [Op, Pairs] => ['GetPlayerGlobals', [['playerID', id], ['NumberOfGlobals', '7']]]),
  ...IDS.map((id): [Op, Pairs] => ['GetLandareaGlobals', [['LandareaID', id]]]),
  ['GetAuctionCategories', []],
];

const label = (op: Op, pairs: Pairs) => `${op}(${pairs.map(([n, v]) => `${n}=${JSON.stringify(v)}`).join(', ')})`;

/**
 * SOAP 1.1's answer for a case, asked once per file whichever test asks first, so each test
 * passes alone and in any order.
 */
const soapAnswers = new Map<string, Promise<Answer>>();
function soapAnswer(op: Op, pairs: Pairs): Promise<Answer> {
  const key = label(op, pairs);
  if (!soapAnswers.has(key)) soapAnswers.set(key, soap11(op, [...credentials(), ...pairs]));
  return soapAnswers.get(key)!;
}

/** How many records a case gives over SOAP 1.1 (-1: NotFound), to check that the comparisons are not all of empty lists. */
async function count(op: Op, pairs: Pairs): Promise<number> {
  const soap = await soapAnswer(op, pairs);
  if (soap.status !== 200 && soapFaultCode(soap) === 'NotFound') return -1;
  return soapShapes(op, soap).length;
}

describe('HTTP GET and POST give the records SOAP 1.1 gives', () => {
  test.each(CASES.map((c) => [label(...c), ...c] as const))('%s', async (_name, op, pairs) => {
    const all = [...credentials(), ...pairs];
    const [soap, get, post] = await Promise.all([soapAnswer(op, pairs), httpGet(op, all), httpPost(op, all)]);
    if (soap.status !== 200) {
      // The one expected failure among these inputs: GetMonster of an unknown ID.
      expect(soapFaultCode(soap)).toBe('NotFound');
      for (const res of [get, post]) expect(serviceError(res)).toMatchObject({ status: 404, code: 'NotFound' });
      return;
    }
    const expected = soapShapes(op, soap);
    expect(document(op, get).children.map(shape)).toEqual(expected);
    expect(document(op, post).children.map(shape)).toEqual(expected);
  });

  test('the inputs cover populated lists, empty lists and an unknown record', async () => {
    expect(await count('GetWeapons', [['SearchWord', '']])).toBeGreaterThan(10);
    expect(await count('FindItems', [['SearchWord', 'oil']])).toBeGreaterThan(2);
    expect(await count('GetMonsters', [['SearchWord', 'atrox']])).toBeGreaterThan(2);
    expect(await count('GetMonster', [['MonsterID', '1']])).toBe(3); // the three fields of a Monster
    expect(await count('GetMonster', [['MonsterID', '777001']])).toBe(-1);
    expect(await count('GetMonsterGlobals', [['MonsterID', '1'], ['NumberOfGlobals', '7']])).toBe(7);
    expect(await count('GetPlayerGlobals', [['playerID', '777001'], ['NumberOfGlobals', '7']])).toBe(7);
    expect(await count('GetLandareaGlobals', [['LandareaID', '107']])).toBe(100);
    expect(await count('GetLandareaGlobals', [['LandareaID', '777001']])).toBe(0);
    expect(await count('GetAuctionCategories', [])).toBeGreaterThan(10);
  });
});

// ---------------------------------------------------------------------------------------------
// Parameters on the wire

describe('parameters', () => {
  const monster1 = async () => document('GetMonster', await httpGet('GetMonster', [...credentials(), ['MonsterID', '1']])).children.map(shape);

  test('XSD int: sign and surrounding whitespace are accepted', async () => {
    const expected = await monster1();
    for (const id of [' 1 ', '+1', '0001', '\t1\n']) {
      const res = await httpGet('GetMonster', [...credentials(), ['MonsterID', id]]);
      expect(document('GetMonster', res).children.map(shape)).toEqual(expected);
    }
  });

  test('POST accepts a charset parameter in any spelling', async () => {
    const expected = await monster1();
    for (const type of [`${FORM}; charset=utf-8`, `${FORM};charset=UTF-8`, `Application/X-WWW-Form-URLEncoded ; Charset="utf-8"`]) {
      const res = await httpPost('GetMonster', [...credentials(), ['MonsterID', '1']], type);
      expect(document('GetMonster', res).children.map(shape)).toEqual(expected);
    }
  });

  test('POST decodes the body in its declared charset', async () => {
    const body = Buffer.concat([
      Buffer.from(`DevID=${svc.key.devId}&DevKey=${encodeURIComponent(svc.key.devKey)}&SearchWord=`),
      Buffer.from('Hart & Söhne'.replace('&', '%26').replace(/ /g, '+'), 'latin1'),
    ]);
    const res = await answer(await fetch(`${svc.url}/api/weapons.asmx/GetWeapons`, {
      method: 'POST', headers: { 'Content-Type': `${FORM}; charset=iso-8859-1` }, body,
    }));
    const names = document('GetWeapons', res).children.map((w) => w.children.find((c) => c.local === 'WeaponName')?.text);
    expect(names).toContain('Hart & Söhne Repeater');
  });

  test('"+" is a space and a later "?" belongs to a value', async () => {
    const expected = document('GetMonsters', await httpGet('GetMonsters', [...credentials(), ['SearchWord', 'old atrox']]));
    const plus = await answer(await fetch(`${svc.url}/API/hunting.asmx/GetMonsters?DevID=${svc.key.devId}&DevKey=${svc.key.devKey}&SearchWord=old+atrox`));
    expect(document('GetMonsters', plus).children.map(shape)).toEqual(expected.children.map(shape));
    expect(expected.children.length).toBeGreaterThan(0);
    // The whole query string after the first "?" is read: the credentials after "a?b" count.
    const question = await answer(await fetch(`${svc.url}/API/hunting.asmx/GetMonsters?SearchWord=a?b&DevID=${svc.key.devId}&DevKey=${svc.key.devKey}`));
    expect(document('GetMonsters', question).children).toEqual([]);
  });

  test('unknown parameters are ignored, even repeated or named like object properties', async () => {
    const expected = await monster1();
    const pairs: Pairs = [...credentials(), ['MonsterID', '1'], ['x', '1'], ['x', '2'], ['constructor', 'a'], ['__proto__', 'b'], ['toString', 'c'], ['toString', 'd']];
    for (const res of [await httpGet('GetMonster', pairs), await httpPost('GetMonster', pairs)]) {
      expect(document('GetMonster', res).children.map(shape)).toEqual(expected);
    }
  });

  test('parameter names are case-sensitive', async () => {
    const res = await httpGet('GetMonster', [...credentials(), ['monsterid', '1']]);
    expect(serviceError(res)).toMatchObject({ status: 400, code: 'MissingParameter', parameter: 'MonsterID' });
  });
});

// ---------------------------------------------------------------------------------------------
// Errors

describe('errors are <ServiceError> documents with their status', () => {
  const both = async (op: Op, pairs: Pairs) => [await httpGet(op, pairs), await httpPost(op, pairs)];

  test.each([
    ['MonsterID', 'abc'], ['MonsterID', ''], ['MonsterID', '2147483648'], ['MonsterID', '-2147483649'], ['MonsterID', '1.0'], ['MonsterID', '0x10'],
  ])('InvalidParameter: %s=%j', async (name, value) => {
    for (const res of await both('GetMonster', [...credentials(), [name, value]])) {
      expect(serviceError(res)).toMatchObject({ status: 400, code: 'InvalidParameter', parameter: name });
    }
  });

  test('InvalidParameter: NumberOfGlobals below 1, SearchWord over 100 characters', async () => {
    for (const res of await both('GetPlayerGlobals', [...credentials(), ['playerID', '777001'], ['NumberOfGlobals', '0']])) {
      expect(serviceError(res)).toMatchObject({ status: 400, code: 'InvalidParameter', parameter: 'NumberOfGlobals' });
    }
    for (const res of await both('GetWeapons', [...credentials(), ['SearchWord', 'x'.repeat(101)]])) {
      expect(serviceError(res)).toMatchObject({ status: 400, code: 'InvalidParameter', parameter: 'SearchWord' });
    }
    for (const res of await both('GetWeapons', [...credentials(), ['SearchWord', 'x'.repeat(100)]])) {
      expect(res.status).toBe(200);
    }
  });

  test('MissingParameter names the parameter', async () => {
    for (const res of await both('GetMonster', credentials())) {
      expect(serviceError(res)).toMatchObject({ status: 400, code: 'MissingParameter', parameter: 'MonsterID' });
    }
    for (const res of await both('GetMonsterGlobals', [...credentials(), ['MonsterID', '1']])) {
      expect(serviceError(res)).toMatchObject({ status: 400, code: 'MissingParameter', parameter: 'NumberOfGlobals' });
    }
    for (const res of await both('GetPlayerGlobals', [...credentials(), ['NumberOfGlobals', '3']])) {
      expect(serviceError(res)).toMatchObject({ status: 400, code: 'MissingParameter', parameter: 'playerID' });
    }
  });

  test('a parameter given twice is InvalidParameter', async () => {
    for (const res of await both('GetMonster', [...credentials(), ['MonsterID', '1'], ['MonsterID', '1']])) {
      expect(serviceError(res)).toMatchObject({ status: 400, code: 'InvalidParameter', parameter: 'MonsterID' });
    }
    for (const res of await both('GetWeapons', [...credentials(), ['SearchWord', ''], ['SearchWord', 'oil']])) {
      expect(serviceError(res)).toMatchObject({ status: 400, code: 'InvalidParameter', parameter: 'SearchWord' });
    }
  });

  test('AuthenticationFailed is 403 with one message for every case', async () => {
    const id = String(svc.key.devId);
    const cases: Pairs[] = [
      [['DevID', id], ['DevKey', `${svc.key.devKey}x`], ['MonsterID', '1']],
      [['DevID', String(svc.key.devId + 1000)], ['DevKey', svc.key.devKey], ['MonsterID', '1']],
      [['DevKey', svc.key.devKey], ['MonsterID', '1']],
      [['DevID', id], ['MonsterID', '1']],
      [['DevID', 'one'], ['DevKey', svc.key.devKey], ['MonsterID', '1']],
      [['DevID', id], ['DevKey', ''], ['MonsterID', '1']],
      [['DevID', id], ['DevID', id], ['DevKey', svc.key.devKey], ['MonsterID', '1']],
      // Credentials are checked before anything else: a bad MonsterID does not show.
      [['DevID', id], ['DevKey', 'wrong'], ['MonsterID', 'abc']],
    ];
    const messages = new Set<string | undefined>();
    for (const pairs of cases) {
      for (const res of await both('GetMonster', pairs)) {
        const e = serviceError(res);
        expect(e).toMatchObject({ status: 403, code: 'AuthenticationFailed', parameter: undefined });
        messages.add(e.message);
      }
    }
    expect(messages.size).toBe(1);
  });

  test('NotFound: GetMonster of an unknown ID is 404', async () => {
    for (const res of await both('GetMonster', [...credentials(), ['MonsterID', '777001']])) {
      expect(serviceError(res)).toMatchObject({ status: 404, code: 'NotFound' });
    }
  });

  test('a method other than GET and POST is 405 with Allow', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await answer(await fetch(`${svc.url}/API/hunting.asmx/GetMonster?${query([...credentials(), ['MonsterID', '1']])}`, { method }));
      expect(serviceError(res)).toMatchObject({ status: 405, code: 'MethodNotAllowed' });
      expect(res.headers.get('allow')).toBe('GET, POST');
    }
  });

  test('POST with another content type is 415', async () => {
    const pairs: Pairs = [...credentials(), ['MonsterID', '1']];
    // application/json is the JSON binding's (test/json-binding.test.ts).
    for (const type of [null, 'text/plain', 'multipart/form-data; boundary=x', 'text/xml; charset=utf-8', 'application/x-www-form-urlencodedx']) {
      expect(serviceError(await httpPost('GetMonster', pairs, type))).toMatchObject({ status: 415, code: 'UnsupportedMediaType' });
    }
  });

  test('an unknown operation is 404 UnknownOperation; operation names are exact', async () => {
    const pairs: Pairs = [...credentials(), ['MonsterID', '1']];
    for (const opPath of ['/API/hunting.asmx/getmonster', '/API/hunting.asmx/GETMONSTER', '/API/hunting.asmx/Nope', '/api/weapons.asmx/GetMonster']) {
      for (const res of [await httpGet('GetMonster', pairs, opPath), await httpPost('GetMonster', pairs, FORM, opPath)]) {
        expect(serviceError(res)).toMatchObject({ status: 404, code: 'UnknownOperation' });
      }
    }
  });

  test('a path that is no endpoint is 404 NotFound', async () => {
    for (const p of ['/api/nothing.asmx/GetMonster', '/API/hunting.asmx/GetMonster/extra', '/hunting.asmx']) {
      expect(serviceError(await answer(await fetch(svc.url + p)))).toMatchObject({ status: 404, code: 'NotFound' });
    }
  });

  test('a body over SVAPI_MAX_BODY is 413', async () => {
    const res = await httpPost('GetWeapons', [...credentials(), ['SearchWord', 'x'.repeat(svc.config.SVAPI_MAX_BODY)]]);
    expect(serviceError(res)).toMatchObject({ status: 413, code: 'RequestTooLarge' });
  });
});

// ---------------------------------------------------------------------------------------------
// Paths

test('endpoint paths match case-insensitively', async () => {
  const pairs: Pairs = [...credentials(), ['MonsterID', '1']];
  const expected = document('GetMonster', await httpGet('GetMonster', pairs)).children.map(shape);
  for (const p of ['/api/HUNTING.asmx/GetMonster', '/Api/Hunting.ASMX/GetMonster', '/API/hunting.asmx/GetMonster/']) {
    expect(document('GetMonster', await httpGet('GetMonster', pairs, p)).children.map(shape)).toEqual(expected);
    expect(document('GetMonster', await httpPost('GetMonster', pairs, FORM, p)).children.map(shape)).toEqual(expected);
  }
  const auction = await httpGet('GetAuctionCategories', credentials(), '/API/AUCTION.asmx/GetAuctionCategories');
  expect(document('GetAuctionCategories', auction).children.length).toBeGreaterThan(0);
});

// ---------------------------------------------------------------------------------------------
// Addresses behind a proxy

/** GET with headers node's fetch would not send as given (Host). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => resolve({ status: res.statusCode!, text }));
    }).on('error', reject);
  });
}

/** Every address of a WSDL (soap:, soap12: and http:address). */
function addresses(wsdl: string): string[] {
  const found = descendants(parseXml(wsdl).root).filter((e) => e.local === 'address').map((e) => e.attributes.location?.value);
  expect(found.length).toBe(4); // SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST ports
  return found as string[];
}

const FORWARDED = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.com' };

describe('addresses', () => {
  test('the WSDL addresses are the URL the client used', async () => {
    const res = await rawGet(`${svc.url}/api/HUNTING.asmx?WSDL`, { Host: 'svc.test:8123' });
    expect(res.status).toBe(200);
    expect(new Set(addresses(res.text))).toEqual(new Set(['http://svc.test:8123/API/hunting.asmx']));
  });

  test('without SVAPI_TRUST_PROXY, X-Forwarded-Proto/Host are ignored', async () => {
    const res = await rawGet(`${svc.url}/API/hunting.asmx?wsdl`, FORWARDED);
    expect(new Set(addresses(res.text))).toEqual(new Set([`${svc.url}/API/hunting.asmx`]));
    expect(res.text).not.toContain('api.example.com');
  });

  test('with SVAPI_TRUST_PROXY, the WSDL and pages use the forwarded scheme and host', async () => {
    const pages = await startWithoutDatabase({ SVAPI_TRUST_PROXY: 'true' });
    try {
      const wsdl = await rawGet(`${pages.url}/API/hunting.asmx?wsdl`, FORWARDED);
      expect(new Set(addresses(wsdl.text))).toEqual(new Set(['https://api.example.com/API/hunting.asmx']));
      const page = await rawGet(`${pages.url}/API/hunting.asmx?op=GetMonster`, FORWARDED);
      expect(page.text).toContain('href="https://api.example.com/API/hunting.asmx?wsdl"');
      expect(page.text).toContain('action="https://api.example.com/API/hunting.asmx/GetMonster"');
      expect(page.text).not.toContain('127.0.0.1');
      // A forwarded host that is not a plain host name is ignored.
      const bad = await rawGet(`${pages.url}/API/hunting.asmx?wsdl`, { 'X-Forwarded-Host': 'evil"><x', Host: 'svc.test' });
      expect(new Set(addresses(bad.text))).toEqual(new Set(['http://svc.test/API/hunting.asmx']));
    } finally {
      await pages.close();
    }
  });

  test('SVAPI_PUBLIC_URL overrides everything, its path prefix included', async () => {
    const pages = await startWithoutDatabase({ SVAPI_PUBLIC_URL: 'https://svc.example.org/legacy/', SVAPI_TRUST_PROXY: 'true' });
    try {
      const wsdl = await rawGet(`${pages.url}/api/item.asmx?wsdl`, FORWARDED);
      expect(new Set(addresses(wsdl.text))).toEqual(new Set(['https://svc.example.org/legacy/api/item.asmx']));
      const page = await rawGet(`${pages.url}/api/item.asmx?op=FindItems`, FORWARDED);
      expect(page.text).toContain('action="https://svc.example.org/legacy/api/item.asmx/FindItems"');
      expect(page.text).toContain('POST /legacy/api/item.asmx HTTP/1.1');
      expect(page.text).toContain('Host: svc.example.org');
      expect(page.text).not.toContain('api.example.com');
    } finally {
      await pages.close();
    }
  });

  test('baseUrl', () => {
    const req = (headers: Record<string, string>) => ({ headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) }) as unknown as Request;
    const plain = loadConfig({});
    const trusting = loadConfig({ SVAPI_TRUST_PROXY: 'true' });
    const published = loadConfig({ SVAPI_PUBLIC_URL: 'https://pub.example.net/x//', SVAPI_TRUST_PROXY: 'true' });
    expect(baseUrl(req({ Host: 'h.test:81' }), plain)).toBe('http://h.test:81');
    expect(baseUrl(req({ Host: 'h.test', ...FORWARDED }), plain)).toBe('http://h.test');
    expect(baseUrl(req({ Host: 'h.test', ...FORWARDED }), trusting)).toBe('https://api.example.com');
    expect(baseUrl(req({ Host: 'h.test', 'X-Forwarded-Proto': 'HTTPS, http', 'X-Forwarded-Host': 'a.test:8443, b.test' }), trusting)).toBe('https://a.test:8443');
    expect(baseUrl(req({ Host: 'h.test', 'X-Forwarded-Proto': 'gopher' }), trusting)).toBe('http://h.test');
    expect(baseUrl(req({ Host: '[::1]:8080' }), plain)).toBe('http://[::1]:8080');
    expect(baseUrl(req({ Host: '<script>' }), plain)).toBe('http://localhost');
    expect(baseUrl(req({ Host: 'h.test', 'X-Forwarded-Host': 'a.test/"><b' }), trusting)).toBe('http://h.test');
    expect(baseUrl(req({ Host: 'h.test', ...FORWARDED }), published)).toBe('https://pub.example.net/x');
  });
});
