// Discovery pages (CONTRACT §2): the index, each endpoint's help page and each operation's page
// with parameters, the four samples and the test forms; escaping of everything that can be
// injected. The pages are polyglot markup, so they are checked with an XML parser, and the
// sample messages on them are parsed and validated against the served schema too.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { ENDPOINTS, type Endpoint } from '../src/wsdl/endpoints';
import { RecordFields, type FieldMeta } from '../src/generated/records';
import { OPERATIONS, type Operation } from '../src/operations/catalog';
import { startWithoutDatabase, type PagesService } from './support/app-without-db';
import { child, descendants, findDeep, isNil, parseXml, resolveQName, serialize, type XmlElement } from './support/xml-tree';
import { assertSchemaValid, checkSchemas } from './support/xmllint';

const XSD = 'http://www.w3.org/2001/XMLSchema';
const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const HOSTILE_NS = `urn:x"><script>alert(1)</script>&amp;'`;
const DISCO = 'http://schemas.xmlsoap.org/disco/';
const DISCO_SCL = 'http://schemas.xmlsoap.org/disco/scl/';
const DISCO_SOAP = 'http://schemas.xmlsoap.org/disco/soap/';

let svc: PagesService;
let tmp: string;
const schemaFiles = new Map<string, string>();

beforeAll(async () => {
  svc = await startWithoutDatabase();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-pages-'));
  for (const e of ENDPOINTS) {
    // ?wsdl=faults: the schema that declares ServiceError, for the error samples.
    const wsdl = await (await fetch(`${svc.url}${e.path}?wsdl=faults`)).text();
    const file = path.join(tmp, `${e.name}.xsd`);
    fs.writeFileSync(file, serialize(child(child(parseXml(wsdl).root, 'types'), 'schema', XSD)));
    schemaFiles.set(e.name, file);
  }
});

// The documents a test queued for schema validation are checked when it ends (test/support/xmllint.ts).
afterEach(checkSchemas);
afterAll(async () => {
  await svc?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Reading pages

interface Page {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  root: XmlElement;
}

/** GET a page (node's http, so a Host header is sent as given) and parse it. */
function page(url: string, headers: Record<string, string> = {}): Promise<Page> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => {
        try {
          resolve({ status: res.statusCode!, headers: res.headers, text, root: parseXml(text).root });
        } catch (e) {
          reject(new Error(`${url}: not well-formed: ${(e as Error).message}\n${text.slice(0, 3000)}`));
        }
      });
    }).on('error', reject);
  });
}

const all = (el: XmlElement, local: string) => descendants(el).filter((d) => d.local === local);
const attr = (el: XmlElement, name: string) => el.attributes[name]?.value;
/** All text of an element, its descendants' included (the element's own text first: for containment checks). */
const textOf = (el: XmlElement): string => el.text + el.children.map(textOf).join('');
const hrefs = (p: Page) => all(p.root, 'a').map((a) => attr(a, 'href'));

function expectHtml(p: Page, status = 200) {
  expect(p.status).toBe(status);
  expect(p.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(p.headers['content-security-policy']).toMatch(/default-src 'none'/);
  expect(p.text.startsWith('<!DOCTYPE html>')).toBe(true);
  // No page carries a script or an external resource (the DISCO link is not fetched by a browser).
  expect(all(p.root, 'script')).toEqual([]);
  expect(all(p.root, 'link').filter((l) => attr(l, 'rel') !== 'alternate')).toEqual([]);
  expect(all(p.root, 'img')).toEqual([]);
}

/** The DISCO links in a page's head, as [rel, type, href]. */
const discoLinks = (p: Page) => all(child(p.root, 'head'), 'link').map((l) => [attr(l, 'rel'), attr(l, 'type'), attr(l, 'href')]);

const opsOf = (e: Endpoint) => OPERATIONS.filter((o) => o.endpoint === e.name);
const endpointOf = (op: Operation) => ENDPOINTS.find((e) => e.name === op.endpoint)!;

// ---------------------------------------------------------------------------------------------
// Index and endpoint pages

test('/ lists the four endpoints with their help pages, WSDLs and operations, and the operational URLs', async () => {
  const p = await page(`${svc.url}/`);
  expectHtml(p);
  const links = hrefs(p);
  for (const e of ENDPOINTS) {
    expect(links).toContain(`${svc.url}${e.path}`);
    expect(links).toContain(`${svc.url}${e.path}?wsdl`);
    expect(links).toContain(`${svc.url}${e.path}?wsdl=faults`);
    for (const op of opsOf(e)) expect(links).toContain(`${svc.url}${e.path}?op=${op.name}`);
  }
  for (const u of ['/healthz', '/readyz', '/metrics']) expect(links).toContain(svc.url + u);
  expect(textOf(p.root)).toContain('SVAPI');
  expect(textOf(p.root)).toMatch(/is the WSDL as the legacy\s+ASMX service published it.*use it unless you want typed faults/s);
  expect(discoLinks(p)).toEqual([]);
});

test('the pages list the five bindings in one order: SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST, JSON', async () => {
  const order = ['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST', 'JSON'];
  const home = await page(`${svc.url}/`);
  expect(textOf(home.root)).toContain(`served over ${order.slice(0, -1).join(', ')} and JSON, and`);
  expect(textOf(home.root)).not.toMatch(/four bindings/);
  for (const url of [`${svc.url}/`, `${svc.url}${ENDPOINTS[0].path}`]) {
    const p = await page(url);
    const table = all(p.root, 'table').find((t) => all(t, 'th').map(textOf).join('|') === 'Binding|Request|Answer')!;
    expect(all(table, 'tr').slice(1).map((tr) => textOf(tr.children[0]))).toEqual(order);
  }
});

test.each(ENDPOINTS.map((e) => [e.path, e] as const))('the help page of %s lists its operations and links the WSDL', async (_p, e) => {
  for (const url of [`${svc.url}${e.path}`, `${svc.url}${e.path.toUpperCase()}`, `${svc.url}${e.path}/`]) {
    const p = await page(url);
    expectHtml(p);
    expect(all(p.root, 'h1').map(textOf)).toEqual([`${e.service} service`]);
    const ops = all(p.root, 'a').filter((a) => attr(a, 'href')?.includes('?op='));
    expect(ops.map((a) => [textOf(a), attr(a, 'href')])).toEqual(opsOf(e).map((op) => [op.name, `${svc.url}${e.path}?op=${op.name}`]));
    // Each operation's row carries its summary.
    const rows = all(p.root, 'tr').filter((tr) => all(tr, 'a').some((a) => attr(a, 'href')?.includes('?op=')));
    expect(rows.map((tr) => textOf(tr.children[1]))).toEqual(opsOf(e).map((op) => op.summary));
    expect(hrefs(p)).toContain(`${svc.url}${e.path}?wsdl`);
    expect(hrefs(p)).toContain(`${svc.url}${e.path}?wsdl=faults`);
    expect(textOf(p.root)).toMatch(/use it unless you want typed faults.*also declares\s+as each SOAP 1\.1 operation's fault/s);
    expect(discoLinks(p)).toEqual([['alternate', 'text/xml', `${svc.url}${e.path}?disco`]]);
  }
});

test('?wsdl (any case) gives the WSDL, also when ?op= is given', async () => {
  for (const q of ['?wsdl', '?WSDL', '?Wsdl&op=GetMonster', '?op=GetMonster&wsdl']) {
    const res = await fetch(`${svc.url}/API/hunting.asmx${q}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(parseXml(await res.text()).root.local).toBe('definitions');
  }
});

test('?wsdl declares no fault, as ASMX published it; ?wsdl=faults (any case) declares ServiceError as each SOAP 1.1 operation\'s fault', async () => {
  const faultsOf = async (q: string) => {
    const res = await fetch(`${svc.url}/API/hunting.asmx${q}`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/xml; charset=utf-8']);
    const text = await res.text();
    return { text, faults: text.match(/<wsdl:fault name="ServiceError"[^>]*>/g) ?? [] };
  };
  for (const q of ['?wsdl', '?WSDL', '?wsdl=', '?wsdl=other']) {
    const { text, faults } = await faultsOf(q);
    expect(faults).toEqual([]);
    expect(text).not.toContain('ServiceError');
  }
  for (const q of ['?wsdl=faults', '?WSDL=Faults', '?op=GetMonster&wsdl=faults']) {
    const { text, faults } = await faultsOf(q);
    // Five operations: in the portType, then in the SOAP 1.1 binding.
    expect(faults).toEqual([...Array(5).fill('<wsdl:fault name="ServiceError" message="tns:ServiceErrorFault" />'), ...Array(5).fill('<wsdl:fault name="ServiceError">')]);
    expect(text).toContain('<s:element name="ServiceError" type="tns:ServiceError" />');
  }
});

// ---------------------------------------------------------------------------------------------
// Operation pages

interface SampleBlocks {
  request: string;
  response: string;
}

/** The request and response code blocks under each sample heading. */
function sampleBlocks(p: Page): Map<string, SampleBlocks> {
  const main = findDeep(p.root, 'main')!;
  const out = new Map<string, SampleBlocks>();
  const kids = main.children;
  for (let i = 0; i < kids.length; i++) {
    if (kids[i].local !== 'h3') continue;
    const figures = kids.slice(i + 1, i + 3).filter((k) => k.local === 'figure');
    if (figures.length !== 2) continue;
    const code = (f: XmlElement) => findDeep(f, 'code')!.text;
    expect(figures.map((f) => textOf(findDeep(f, 'figcaption')!))).toEqual(['Request', 'Response']);
    out.set(textOf(kids[i]), { request: code(figures[0]), response: code(figures[1]) });
  }
  return out;
}

/** A sample message: header lines, a blank line, then the body. */
function splitMessage(text: string): { head: string[]; body: string } {
  const i = text.indexOf('\n\n');
  return i < 0 ? { head: text.split('\n'), body: '' } : { head: text.slice(0, i).split('\n'), body: text.slice(i + 2) };
}

const PLACEHOLDER_VALUES: Record<string, string> = { int: '1', decimal: '1.5', boolean: 'true', dateTime: '2026-11-21T18:04:05Z', string: 'text' };

/** The sample with its type placeholders replaced by values of those types, for the validator. */
const withValues = (xml: string) => xml.replace(/>(int|decimal|boolean|dateTime|string)</g, (_m, t: string) => `>${PLACEHOLDER_VALUES[t]}<`);

const validate = (endpoint: Endpoint, xml: string) =>
  assertSchemaValid(schemaFiles.get(endpoint.name)!, xml, `sample not valid against the ${endpoint.name} schema`);

const paramsOf = (op: Operation) => [['DevID', 'int'], ['DevKey', 'string'], ...op.params.map((p) => [p.name, p.type])];
const rootOf = (op: Operation) => (op.list ? `ArrayOf${op.record}` : op.record);

describe.each(OPERATIONS.map((op) => [op.name, op] as const))('the page of %s', (_name, op) => {
  const e = endpointOf(op);
  const host = () => new URL(svc.url).host;
  let p: Page;
  beforeAll(async () => {
    p = await page(`${svc.url}${e.path}?op=${op.name}`);
  });

  test('is an HTML page with the operation, its summary and the WSDL link', () => {
    expectHtml(p);
    expect(all(p.root, 'h1').map(textOf)).toEqual([op.name]);
    expect(textOf(p.root)).toContain(op.summary);
    expect(hrefs(p)).toContain(`${svc.url}${e.path}?wsdl`);
    expect(hrefs(p)).toContain(`${svc.url}${e.path}?wsdl=faults`);
    expect(hrefs(p)).toContain(`${svc.url}${e.path}`);
    expect(discoLinks(p)).toEqual([['alternate', 'text/xml', `${svc.url}${e.path}?disco`]]);
  });

  test('shows the parameters with their types: DevID, DevKey, then its own', () => {
    const table = all(p.root, 'table').find((t) => attr(t, 'class') === 'params')!;
    const rows = all(table, 'tr').slice(1).map((tr) => [textOf(tr.children[0]), textOf(findDeep(tr.children[1], 'code')!)]);
    expect(rows).toEqual(paramsOf(op));
  });

  test('has a GET and a POST test form with an input per parameter', () => {
    const forms = all(p.root, 'form');
    expect(forms.map((f) => [attr(f, 'method'), attr(f, 'action')])).toEqual([
      ['get', `${svc.url}${e.path}/${op.name}`],
      ['post', `${svc.url}${e.path}/${op.name}`],
    ]);
    for (const f of forms) {
      expect(all(f, 'input').map((i) => attr(i, 'name'))).toEqual(paramsOf(op).map(([n]) => n));
      expect(all(f, 'button').map((b) => attr(b, 'type'))).toEqual(['submit']);
      // Every input has its label.
      for (const i of all(f, 'input')) expect(all(f, 'label').map((l) => attr(l, 'for'))).toContain(attr(i, 'id'));
    }
  });

  test('shows SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST samples with their headers', () => {
    const samples = sampleBlocks(p);
    expect([...samples.keys()]).toEqual(['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST']);
    const s11 = splitMessage(samples.get('SOAP 1.1')!.request);
    expect(s11.head).toEqual([`POST ${e.path} HTTP/1.1`, `Host: ${host()}`, 'Content-Type: text/xml; charset=utf-8', 'Content-Length: length', `SOAPAction: "SVAPI/${op.name}"`]);
    const s12 = splitMessage(samples.get('SOAP 1.2')!.request);
    expect(s12.head).toEqual([`POST ${e.path} HTTP/1.1`, `Host: ${host()}`, 'Content-Type: application/soap+xml; charset=utf-8', 'Content-Length: length']);
    // The placeholders are the types of the parameter table: `MonsterID=int`, not `MonsterID=string`.
    const pairs = paramsOf(op).map(([n, type]) => `${n}=${type}`).join('&');
    if (op.name === 'GetMonster') expect(pairs).toBe('DevID=int&DevKey=string&MonsterID=int');
    expect(splitMessage(samples.get('HTTP GET')!.request).head).toEqual([`GET ${e.path}/${op.name}?${pairs} HTTP/1.1`, `Host: ${host()}`]);
    const post = splitMessage(samples.get('HTTP POST')!.request);
    expect(post.head).toEqual([`POST ${e.path}/${op.name} HTTP/1.1`, `Host: ${host()}`, 'Content-Type: application/x-www-form-urlencoded', 'Content-Length: length']);
    expect(post.body).toBe(pairs);
    for (const [title, version] of [['SOAP 1.1', 'text/xml'], ['SOAP 1.2', 'application/soap+xml'], ['HTTP GET', 'text/xml'], ['HTTP POST', 'text/xml']]) {
      expect(splitMessage(samples.get(title)!.response).head).toEqual(['HTTP/1.1 200 OK', `Content-Type: ${version}; charset=utf-8`, 'Content-Length: length']);
    }
  });

  test('the SOAP request samples hold the parameters with type placeholders, in order', () => {
    const samples = sampleBlocks(p);
    for (const [title, envNs] of [['SOAP 1.1', SOAP11], ['SOAP 1.2', SOAP12]]) {
      const env = parseXml(splitMessage(samples.get(title)!.request).body).root;
      expect([env.local, env.uri]).toEqual(['Envelope', envNs]);
      const opEl = child(child(env, 'Body', envNs), op.name, 'SVAPI');
      expect(opEl.children.map((c) => [c.local, c.text])).toEqual(paramsOf(op));
      validate(e, withValues(serialize(opEl)));
    }
  });

  test('the response samples show the record in schema order and are valid against the served schema', () => {
    const samples = sampleBlocks(p);
    for (const [title, envNs] of [['SOAP 1.1', SOAP11], ['SOAP 1.2', SOAP12]]) {
      const env = parseXml(withValues(splitMessage(samples.get(title)!.response).body)).root;
      const response = child(child(env, 'Body', envNs), `${op.name}Response`, 'SVAPI');
      validate(e, serialize(response));
      const result = child(response, `${op.name}Result`, 'SVAPI');
      const fields = op.list ? result.children[0].children : result.children;
      expect(fields.map((f) => f.local)).toEqual((RecordFields[op.record] as readonly FieldMeta[]).map((f) => f.name));
    }
    for (const title of ['HTTP GET', 'HTTP POST']) {
      const body = splitMessage(samples.get(title)!.response).body;
      expect(body.startsWith('<?xml version="1.0" encoding="utf-8"?>')).toBe(true);
      const root = parseXml(body).root;
      expect([root.local, root.uri]).toEqual([rootOf(op), 'SVAPI']);
      const fields = op.list ? root.children[0].children : root.children;
      expect(fields.map((f) => [f.local, f.children.length || isNil(f) ? '' : f.text])).toEqual(
        (RecordFields[op.record] as readonly FieldMeta[]).map((f) => [f.name, f.kind === 'simple' && !f.nillable ? f.type : '']),
      );
      validate(e, withValues(body));
    }
  });

  test('shows an error sample: a ServiceError document', () => {
    const blocks = all(p.root, 'figure').filter((f) => !findDeep(f, 'figcaption'));
    expect(blocks.length).toBe(1);
    const message = splitMessage(findDeep(blocks[0], 'code')!.text);
    expect(message.head[0]).toMatch(/^HTTP\/1\.1 40[03] /);
    const error = parseXml(message.body).root;
    expect([error.local, error.uri]).toEqual(['ServiceError', 'SVAPI']);
    validate(e, message.body);
  });
});

test('nested values in the samples: nil three levels into a SOAP result, populated over HTTP (interface spec §2)', async () => {
  const samplesOf = async (op: string, p = '/API/hunting.asmx') => sampleBlocks(await page(`${svc.url}${p}?op=${op}`));
  const globals = await samplesOf('GetMonsterGlobals');
  const soapRecord = parseXml(splitMessage(globals.get('SOAP 1.1')!.response).body).root;
  const soapGlobal = findDeep(soapRecord, 'HuntingGlobal')!;
  expect(isNil(child(child(soapGlobal, 'Monster'), 'Description'))).toBe(true);
  expect(isNil(child(child(soapGlobal, 'Landarea'), 'Planet'))).toBe(true);
  const httpGlobal = parseXml(splitMessage(globals.get('HTTP GET')!.response).body).root.children[0];
  expect(child(child(httpGlobal, 'Monster'), 'Description').children.map((c) => c.local)).toEqual(['Description', 'ItemPictureURL']);
  const planet = child(child(httpGlobal, 'Landarea'), 'Planet');
  expect(planet.children.map((c) => c.local)).toEqual(['PlanetName', 'PlanetID', 'Description']);
  expect(isNil(child(planet, 'Description'))).toBe(true);

  const weapons = await samplesOf('GetWeapons', '/api/weapons.asmx');
  const soapWeapon = findDeep(parseXml(splitMessage(weapons.get('SOAP 1.2')!.response).body).root, 'Weapon')!;
  expect(child(soapWeapon, 'DamageTypes').children.map((c) => [c.local, isNil(c)])).toEqual([['DamageType', true], ['DamageType', true]]);
  expect(isNil(child(soapWeapon, 'Description'))).toBe(false);
  const httpWeapon = parseXml(splitMessage(weapons.get('HTTP POST')!.response).body).root.children[0];
  expect(child(httpWeapon, 'DamageTypes').children.map((c) => c.children.map((f) => f.local))).toEqual([['Damage', 'DamageTypeName'], ['Damage', 'DamageTypeName']]);

  // A single record: its Description is directly inside the result, populated.
  const monster = await samplesOf('GetMonster');
  const result = findDeep(parseXml(splitMessage(monster.get('SOAP 1.1')!.response).body).root, 'GetMonsterResult')!;
  expect(child(result, 'Description').children.map((c) => c.local)).toEqual(['Description', 'ItemPictureURL']);
});

// ---------------------------------------------------------------------------------------------
// The namespace forms (CONTRACT §1): ASMX's default, which ends in `/`, a URI without one, and
// ours; the SOAPAction on the pages and the DISCO document (CONTRACT §2)

describe.each([
  { ns: 'http://tempuri.org/', action: 'http://tempuri.org/GetMonster' },
  { ns: 'http://example.com/svapi', action: 'http://example.com/svapi/GetMonster' },
  { ns: 'SVAPI', action: 'SVAPI/GetMonster' },
])('with SVAPI_NAMESPACE=$ns', ({ ns, action }) => {
  let other: PagesService;
  beforeAll(async () => {
    other = await startWithoutDatabase({ SVAPI_NAMESPACE: ns });
  });
  afterAll(async () => {
    await other?.close();
  });

  test('an operation page shows the SOAPAction by ASMX\'s rule, in its facts and its SOAP 1.1 sample', async () => {
    const p = await page(`${other.url}/API/hunting.asmx?op=GetMonster`);
    expectHtml(p);
    const dt = all(p.root, 'dt').find((d) => textOf(d) === 'SOAPAction')!;
    const dd = dt.parent!.children[dt.parent!.children.indexOf(dt) + 1];
    expect([dd.local, textOf(dd)]).toEqual(['dd', `"${action}"`]);
    expect(splitMessage(sampleBlocks(p).get('SOAP 1.1')!.request).head).toContain(`SOAPAction: "${action}"`);
  });

  test.each(ENDPOINTS.map((e) => [e.path, e] as const))('%s?disco is ASMX\'s DISCO document: the WSDL and both SOAP bindings, which the help page links', async (_p, e) => {
    const base = other.url;
    for (const q of ['?disco', '?DISCO', '?Disco']) {
      const res = await request(other.server).get(e.path + q);
      expect([res.status, res.headers['content-type']]).toEqual([200, 'text/xml; charset=utf-8']);
      expect(res.text.startsWith('<?xml version="1.0" encoding="utf-8"?>\n')).toBe(true);
      const root = parseXml(res.text).root;
      expect([root.local, root.uri]).toEqual(['discovery', DISCO]);
      expect(root.children.map((c) => [c.local, c.uri])).toEqual([['contractRef', DISCO_SCL], ['soap', DISCO_SOAP], ['soap', DISCO_SOAP]]);
      const [contract, ...soap] = root.children;
      expect([attr(contract, 'ref'), attr(contract, 'docRef')]).toEqual([`${base}${e.path}?wsdl`, `${base}${e.path}`]);
      expect(soap.map((b) => [attr(b, 'address'), resolveQName(b, attr(b, 'binding')!)])).toEqual([
        [`${base}${e.path}`, { uri: ns, local: `${e.service}Soap` }],
        [`${base}${e.path}`, { uri: ns, local: `${e.service}Soap12` }],
      ]);
    }
    // What it refers to is there: the WSDL, with those two bindings, and the help page linking back here.
    const wsdl = parseXml((await request(other.server).get(`${e.path}?wsdl`)).text).root;
    const bindings = wsdl.children.filter((c) => c.local === 'binding').map((b) => attr(b, 'name'));
    expect(bindings).toEqual(expect.arrayContaining([`${e.service}Soap`, `${e.service}Soap12`]));
    expect(wsdl.attributes.targetNamespace.value).toBe(ns);
    for (const url of [`${base}${e.path}`, `${base}${e.path}?op=${opsOf(e)[0].name}`, `${base}${e.path}?op=Nope`]) {
      expect(discoLinks(await page(url))).toEqual([['alternate', 'text/xml', `${base}${e.path}?disco`]]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Unknown operations, escaping

describe('an unknown operation', () => {
  test('?op=Unknown is a 404 page listing the operations', async () => {
    const p = await page(`${svc.url}/API/hunting.asmx?op=Unknown`);
    expectHtml(p, 404);
    expect(all(p.root, 'code').map((c) => c.text)).toContain('Unknown');
    const e = ENDPOINTS.find((x) => x.name === 'hunting')!;
    for (const op of opsOf(e)) expect(hrefs(p)).toContain(`${svc.url}${e.path}?op=${op.name}`);
  });

  test('operation names are exact; a wrong case gets a suggestion', async () => {
    const p = await page(`${svc.url}/API/hunting.asmx?op=getmonster`);
    expectHtml(p, 404);
    const hint = all(p.root, 'p').find((el) => el.text.includes('Did you mean'))!;
    expect(all(hint, 'a').map((a) => [textOf(a), attr(a, 'href')])).toEqual([['GetMonster', `${svc.url}/API/hunting.asmx?op=GetMonster`]]);
  });

  test('an operation of another endpoint is unknown here', async () => {
    expectHtml(await page(`${svc.url}/api/weapons.asmx?op=GetMonster`), 404);
  });

  test('the name asked for is shown escaped', async () => {
    const name = `<script>alert("x")</script><img src=x onerror=alert(1)>'&amp;`;
    const p = await page(`${svc.url}/API/hunting.asmx?op=${encodeURIComponent(name)}`);
    expectHtml(p, 404);
    expect(p.text).not.toContain('<script>');
    expect(p.text).not.toContain('<img');
    expect(p.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    // Parsed back, the page shows exactly the name that was asked for.
    expect(all(p.root, 'code').map((c) => c.text)).toContain(name);
  });
});

describe('escaping of configured and forwarded values', () => {
  let hostile: PagesService;
  beforeAll(async () => {
    hostile = await startWithoutDatabase({ SVAPI_NAMESPACE: HOSTILE_NS, SVAPI_TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await hostile?.close();
  });

  const urls = () => [
    `${hostile.url}/`,
    ...ENDPOINTS.map((e) => `${hostile.url}${e.path}`),
    ...OPERATIONS.map((op) => `${hostile.url}${endpointOf(op).path}?op=${op.name}`),
    `${hostile.url}/API/hunting.asmx?op=Nope`,
  ];

  test('a namespace with markup never appears unescaped', async () => {
    for (const url of urls()) {
      const p = await page(url);
      expectHtml(p, url.endsWith('Nope') ? 404 : 200);
      expect(p.text).not.toContain('<script>');
      expect(p.text).not.toMatch(/<[a-z]+[^>]*onerror/i);
    }
    // On an operation page the namespace is shown as written, in the SOAPAction and the samples.
    const p = await page(`${hostile.url}/API/hunting.asmx?op=GetMonster`);
    expect(textOf(p.root)).toContain(`"${HOSTILE_NS}/GetMonster"`);
    const samples = sampleBlocks(p);
    const env = parseXml(splitMessage(samples.get('SOAP 1.1')!.request).body).root;
    expect(child(env, 'Body', SOAP11).children[0].uri).toBe(HOSTILE_NS);
    expect(parseXml(splitMessage(samples.get('HTTP GET')!.response).body).root.uri).toBe(HOSTILE_NS);
  });

  test('a Host or X-Forwarded-Host with markup is ignored, never shown', async () => {
    const cases: Record<string, string>[] = [
      { Host: 'x"><script>alert(2)</script>' },
      { Host: 'ok.test', 'X-Forwarded-Host': '"><script>alert(2)</script>', 'X-Forwarded-Proto': 'javascript' },
    ];
    for (const headers of cases) {
      for (const url of [`${hostile.url}/`, `${hostile.url}/API/hunting.asmx?op=GetMonster`]) {
        const p = await page(url, headers);
        expect(p.text).not.toContain('<script>');
        expect(p.text).not.toContain('alert(2)');
        for (const href of hrefs(p)) expect(href).toMatch(/^http:\/\/(localhost|ok\.test)\//);
      }
    }
  });

  test('the DISCO document carries a namespace with markup as written and the forwarded base URL', async () => {
    const res = await request(hostile.server).get('/API/hunting.asmx?disco').set('X-Forwarded-Proto', 'https').set('X-Forwarded-Host', 'ok.test');
    const root = parseXml(res.text).root;
    expect(root.children.map((c) => attr(c, 'address') ?? attr(c, 'ref'))).toEqual([
      'https://ok.test/API/hunting.asmx?wsdl', 'https://ok.test/API/hunting.asmx', 'https://ok.test/API/hunting.asmx',
    ]);
    expect(resolveQName(root.children[1], attr(root.children[1], 'binding')!)).toEqual({ uri: HOSTILE_NS, local: 'HuntingSoap' });
  });

  test('a public URL with markup is escaped', async () => {
    const pub = await startWithoutDatabase({ SVAPI_PUBLIC_URL: 'https://pub.test/a"b/<script>' });
    try {
      for (const url of [`${pub.url}/`, `${pub.url}/api/item.asmx`, `${pub.url}/api/item.asmx?op=FindItems`]) {
        const p = await page(url);
        expect(p.text).not.toContain('<script>');
        for (const href of [...hrefs(p), ...discoLinks(p).map((l) => l[2])]) expect(href!.startsWith('https://pub.test/a"b/<script>/')).toBe(true);
      }
      const disco = await (await fetch(`${pub.url}/api/item.asmx?disco`)).text();
      expect(disco).not.toContain('<script>');
      expect(attr(parseXml(disco).root.children[0], 'ref')).toBe('https://pub.test/a"b/<script>/api/item.asmx?wsdl');
    } finally {
      await pub.close();
    }
  });
});
