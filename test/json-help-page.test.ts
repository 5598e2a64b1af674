// The JSON binding on the help pages: the bindings table lists it, each operation's page links a
// JSON page of its own with a sample and a test form whose one fixed script the page's
// Content-Security-Policy allows by hash; nothing a caller controls reaches that script.

import crypto from 'node:crypto';
import { ENDPOINTS } from '../src/wsdl/endpoints';
import { OPERATIONS } from '../src/operations/catalog';
import { startWithoutDatabase, type PagesService } from './support/app-without-db';
import { descendants, findDeep, parseXml, type XmlElement } from './support/xml-tree';

const HOSTILE_NS = `urn:x"><script>alert(1)</script>&amp;'`;

let svc: PagesService;
let hostile: PagesService;
beforeAll(async () => {
  [svc, hostile] = await Promise.all([startWithoutDatabase(), startWithoutDatabase({ SVAPI_NAMESPACE: HOSTILE_NS })]);
});
afterAll(async () => {
  await svc?.close();
  await hostile?.close();
});

const all = (el: XmlElement, local: string) => descendants(el).filter((d) => d.local === local);
const textOf = (el: XmlElement): string => el.text + el.children.map(textOf).join('');
const attr = (el: XmlElement, name: string) => el.attributes[name]?.value;

async function page(url: string) {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, root: parseXml(text).root };
}

test('the bindings table on / and on every endpoint page lists JSON', async () => {
  for (const url of [`${svc.url}/`, ...ENDPOINTS.map((e) => `${svc.url}${e.path}`)]) {
    const p = await page(url);
    const rows = all(p.root, 'tr').map((tr) => textOf(tr.children[0]));
    expect(rows).toEqual(expect.arrayContaining(['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST', 'JSON']));
  }
});

describe.each(OPERATIONS.map((op) => [op.name, op] as const))('the JSON page of %s', (_name, op) => {
  const e = ENDPOINTS.find((x) => x.name === op.endpoint)!;
  const url = () => `${svc.url}${e.path}?op=${op.name}&json`;

  test('is linked from the operation page', async () => {
    const p = await page(`${svc.url}${e.path}?op=${op.name}`);
    expect(all(p.root, 'a').map((a) => attr(a, 'href'))).toContain(url());
  });

  test('shows a JSON request and response sample: the parameters as one object, {"d": ...} in schema order', async () => {
    const p = await page(url());
    expect(p.status).toBe(200);
    const codes = all(p.root, 'figure').filter((f) => findDeep(f, 'figcaption')).map((f) => findDeep(f, 'code')!.text);
    expect(codes).toHaveLength(2);
    const [request, response] = codes.map((c) => ({ head: c.slice(0, c.indexOf('\n\n')).split('\n'), body: c.slice(c.indexOf('\n\n') + 2) }));
    expect(request.head).toEqual([`POST ${e.path}/${op.name} HTTP/1.1`, `Host: ${new URL(svc.url).host}`, 'Content-Type: application/json; charset=utf-8', 'Content-Length: length']);
    expect(Object.keys(JSON.parse(request.body))).toEqual(['DevID', 'DevKey', ...op.params.map((x) => x.name)]);
    expect(response.head[1]).toBe('Content-Type: application/json; charset=utf-8');
    const d = JSON.parse(response.body).d;
    expect(Array.isArray(d)).toBe(op.list);
    // A dateTime as the service writes it: the slashes escaped in the JSON text.
    const dates = response.body.match(/"TimeStamp": "[^"]*"/g) ?? [];
    expect(dates.every((t) => /^"TimeStamp": "\\\/Date\(\d+\)\\\/"$/.test(t))).toBe(true);
    expect(dates.length > 0).toBe(op.record === 'HuntingGlobal');
  });

  test('has a form with an input per parameter and one script, allowed by its hash and nothing else', async () => {
    const p = await page(url());
    const form = all(p.root, 'form');
    expect(form.map((f) => [attr(f, 'id'), attr(f, 'action')])).toEqual([['json-form', `${svc.url}${e.path}/${op.name}`]]);
    expect(all(form[0], 'input').map((i) => attr(i, 'name'))).toEqual(['DevID', 'DevKey', ...op.params.map((x) => x.name)]);
    const scripts = all(p.root, 'script');
    expect(scripts).toHaveLength(1);
    const hash = crypto.createHash('sha256').update(scripts[0].text).digest('base64');
    const csp = p.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
    expect(csp).toContain("connect-src 'self'");
  });
});

test('with a namespace that carries markup, the JSON page escapes it and its script stays the same', async () => {
  const plain = await page(`${svc.url}/API/hunting.asmx?op=GetMonster&json`);
  const p = await page(`${hostile.url}/API/hunting.asmx?op=GetMonster&json`);
  expect(p.text).not.toContain('<script>alert');
  expect(all(p.root, 'script').map((s) => s.text)).toEqual(all(plain.root, 'script').map((s) => s.text));
  expect(p.headers.get('content-security-policy')).toBe(plain.headers.get('content-security-policy'));
});
