// Clients built from the WSDL the legacy ASMX service published (test/fixtures/legacy-wsdl: no
// wsdl:fault, ASMX's SOAPAction rule), not from ours: for each namespace form, node-soap calls
// every operation through both SOAP versions of a service configured with that namespace, gets the
// database's records, and sees faults with their ServiceError detail.

import fs from 'node:fs';
import path from 'node:path';
import * as soap from 'soap';
import { LEGACY_WSDL_DIR, legacyWsdl } from '../scripts/legacy-wsdl';
import { soapActionFor } from '../src/xml/soap-action';
import { NAMESPACE_FORMS, serveNamespaceForms, type NamespaceForm, type NamespaceServices } from './support/namespace-forms';
import { CONTENT_TYPE, ENDPOINTS, ENVELOPE_NS, MATRIX, PORTS, callOperation, clientOptions, operationCases, readRows, type Any, type OperationCase, type Port } from './support/node-soap';
import { child, children, childText, parse, path as xpath } from './support/xml';

let services: NamespaceServices;
let CASES: Record<string, OperationCase>;

beforeAll(async () => {
  services = await serveNamespaceForms();
  CASES = operationCases(await readRows(services.svc.db.knex));
}, 120_000);

afterAll(async () => {
  await services?.close();
});

test('the fixtures are shaped as ASMX published them: no fault declared, actions by its rule, four ports', () => {
  const WSDL = 'http://schemas.xmlsoap.org/wsdl/';
  for (const e of ENDPOINTS) {
    const text = fs.readFileSync(path.join(LEGACY_WSDL_DIR, `${e.wsdl}.wsdl`), 'utf8');
    const root = parse(text);
    expect(root.attrs.targetNamespace?.value).toBe('http://tempuri.org/');
    expect(text).not.toMatch(/<(wsdl|soap|soap12):fault\b/);
    expect(text).not.toContain('ServiceError');
    const service = xpath(root, { local: 'service', uri: WSDL });
    expect(children(service, { local: 'port', uri: WSDL }).map((p) => p.attrs.name?.value))
      .toEqual(['Soap', 'Soap12', 'HttpGet', 'HttpPost'].map((p) => `${e.service}${p}`));
    for (const binding of children(root, { local: 'binding', uri: WSDL }).slice(0, 2)) {
      const actions = children(binding, { local: 'operation', uri: WSDL }).map((op) => [
        op.attrs.name?.value,
        child(op, 'operation')?.attrs.soapAction?.value,
      ]);
      expect(actions).toEqual(e.operations.map((op) => [op, `http://tempuri.org/${op}`]));
    }
  }
});

/** Each operation and fault, for the clients of one namespace form. */
describe.each(NAMESPACE_FORMS)('namespace %s', (ns: NamespaceForm) => {
  const clients = new Map<string, soap.Client>();
  let base: string;
  const credentials = () => ({ DevID: services.svc.key.devId, DevKey: services.svc.key.devKey });

  beforeAll(async () => {
    base = services.url(ns);
    for (const e of ENDPOINTS) {
      const wsdl = legacyWsdl(e.wsdl, ns, base);
      for (const port of PORTS) clients.set(`${e.service}${port}`, await soap.createClientAsync(wsdl, clientOptions(port)));
    }
  });

  test('node-soap sees the two SOAP ports of each fixture, at the service', () => {
    for (const e of ENDPOINTS) {
      const client = clients.get(`${e.service}Soap`)!;
      expect(Object.keys((client.describe() as Any)[e.service]).sort()).toEqual([`${e.service}Soap`, `${e.service}Soap12`]);
      expect((client as Any).wsdl.definitions.services[e.service].ports[`${e.service}Soap`].location).toBe(`${base}${e.path}`);
    }
  });

  test.each(MATRIX)('%s.%s answers with the right records', async (_label, operation, service, port) => {
    const client = clients.get(`${service}${port}`)!;
    const { result, requestHeaders, requestXml, responseContentType } = await callOperation(client, service, port, operation, {
      ...credentials(),
      ...CASES[operation].args,
    });
    // what the legacy client sent: ASMX's action, the body in the namespace
    const action = soapActionFor(ns, operation);
    if (port === 'Soap12') expect(requestHeaders['Content-Type']).toBe(`application/soap+xml; charset=utf-8; action="${action}"`);
    else expect(requestHeaders.SOAPAction).toBe(`"${action}"`);
    const envelope = parse(requestXml);
    expect(envelope.uri).toBe(ENVELOPE_NS[port]);
    const body = xpath(envelope, { local: 'Body', uri: ENVELOPE_NS[port] });
    expect(body.children.map((c) => [c.local, c.uri])).toEqual([[operation, ns]]);
    expect(responseContentType).toBe(CONTENT_TYPE[port]);
    await CASES[operation].check(result);
  });

  /** Faults ASMX clients meet, each sent through both versions; the HTTP GET binding's answer to the same call is the expected detail. */
  const FAULTS: { name: string; service: string; path: string; operation: string; args: () => Record<string, unknown>; code: string }[] = [
    { name: 'wrong DevKey', service: 'Auction', path: '/api/auction.asmx', operation: 'GetAuctionCategories', args: () => ({ ...credentials(), DevKey: 'not-the-key' }), code: 'AuthenticationFailed' },
    { name: 'unknown MonsterID', service: 'Hunting', path: '/API/hunting.asmx', operation: 'GetMonster', args: () => ({ ...credentials(), MonsterID: 987654321 }), code: 'NotFound' },
    { name: 'NumberOfGlobals 0', service: 'Hunting', path: '/API/hunting.asmx', operation: 'GetMonsterGlobals', args: () => ({ ...credentials(), MonsterID: 5, NumberOfGlobals: 0 }), code: 'InvalidParameter' },
  ];

  describe.each(FAULTS.flatMap((f) => PORTS.map((port) => [f.name, port, f] as const)))('%s over %s', (_name, port: Port, f) => {
    test('reaches the client as a fault with the ServiceError detail', async () => {
      const args = f.args();
      const query = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)]));
      const http = await fetch(`${base}${f.path}/${f.operation}?${query}`);
      const expected = parse(await http.text());
      expect({ local: expected.local, uri: expected.uri, code: childText(expected, 'Code') }).toEqual({ local: 'ServiceError', uri: ns, code: f.code });

      const error: Any = await callOperation(clients.get(`${f.service}${port}`)!, f.service, port, f.operation, args).then(
        () => undefined,
        (e) => e.cause,
      );
      expect(error).toBeDefined();
      expect(error.response.status).toBe(port === 'Soap' ? 500 : 400);
      // node-soap's parse of the fault: the undeclared detail comes through as plain values
      const fault = error.root.Envelope.Body.Fault;
      const serviceError = port === 'Soap' ? fault.detail.ServiceError : fault.Detail.ServiceError;
      expect(port === 'Soap' ? fault.faultcode : fault.Code.Value).toBe(port === 'Soap' ? 'soap:Client' : 'env:Sender');
      expect({ ...serviceError }).toEqual(Object.fromEntries(expected.children.map((c) => [c.local, c.text])));
      // and on the wire: the detail element in the configured namespace
      const envelope = parse(error.body);
      const faultEl = xpath(envelope, { local: 'Body', uri: ENVELOPE_NS[port] }, { local: 'Fault', uri: ENVELOPE_NS[port] });
      const detail = child(faultEl, port === 'Soap' ? 'detail' : { local: 'Detail', uri: ENVELOPE_NS[port] })!;
      expect(detail.children.map((c) => [c.local, c.uri])).toEqual([['ServiceError', ns]]);
    });
  });
});
