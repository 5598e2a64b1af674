// SVAPI_NAMESPACE is written into attributes of every output: a namespace with quotes, markup,
// references, tabs and newlines must come back exactly as configured, in a well-formed document.

import { envelope, formBody, parseXml, readError, readResult, send, soapContentType } from './support/bindings';
import { startService, type TestService } from './support/service';

const NS = `urn:x"y'<z>&amp;\tend\nline`;
/** NS written as a double-quoted attribute value (what a client sends). */
const NS_ATTR = 'urn:x&quot;y\'&lt;z&gt;&amp;amp;&#9;end&#10;line';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ SVAPI_NAMESPACE: NS });
});
afterAll(async () => {
  await svc?.close();
});

const hunting = () => `${svc.url}/API/hunting.asmx`;
const credentials = () => ({ DevID: String(svc.key.devId), DevKey: svc.key.devKey });

const soap = (version: '1.1' | '1.2', params: Record<string, string>) => send(hunting(), {
  method: 'POST',
  headers: { 'Content-Type': soapContentType(version) },
  body: envelope(version, 'GetMonster', { ...credentials(), ...params }, NS_ATTR),
});

test.each(['1.1', '1.2'] as const)('SOAP %s: the result and the fault carry the namespace exactly', async (version) => {
  const ok = await soap(version, { MonsterID: '1' });
  expect(ok.status).toBe(200);
  const result = readResult(ok.body);
  expect([result.local, result.uri]).toEqual(['GetMonsterResult', NS]);
  const response = parseXml(ok.body).children[0].children[0];
  expect([response.local, response.uri]).toEqual(['GetMonsterResponse', NS]);

  const bad = await soap(version, { MonsterID: 'x' });
  expect(bad.status).toBe(version === '1.1' ? 500 : 400);
  expect(readError(bad.body, NS)).toMatchObject({ code: 'InvalidParameter', parameter: 'MonsterID' });
});

test('HTTP GET and POST: the result and the error document carry the namespace exactly', async () => {
  const get = await send(`${hunting()}/GetMonster?${formBody({ ...credentials(), MonsterID: '1' })}`);
  expect(get.status).toBe(200);
  expect([parseXml(get.body).local, parseXml(get.body).uri]).toEqual(['Monster', NS]);
  const post = await send(`${hunting()}/GetMonster`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: formBody({ ...credentials(), MonsterID: 'x' }),
  });
  expect(post.status).toBe(400);
  expect(readError(post.body, NS)).toMatchObject({ code: 'InvalidParameter', parameter: 'MonsterID' });
});

test('the WSDL, the DISCO document and the help page carry the namespace exactly', async () => {
  const wsdl = parseXml((await send(`${hunting()}?wsdl`)).body);
  expect(wsdl.attrs.targetNamespace).toBe(NS);
  expect(wsdl.children.find((c) => c.local === 'types')!.children[0].attrs.targetNamespace).toBe(NS);
  const disco = parseXml((await send(`${hunting()}?disco`)).body);
  expect(Object.values(disco.children[1].attrs)).toContain(NS);
  // The help page shows the samples as text: HTML-escaped once more, so no raw markup from NS.
  const page = await send(`${hunting()}?op=GetMonster`);
  expect(page.status).toBe(200);
  expect(page.body).not.toContain('<z>');
  expect(page.body).toContain('xmlns=&quot;urn:x&amp;quot;y');
});
