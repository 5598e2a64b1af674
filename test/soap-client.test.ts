// A node-soap client generated from the WSDL the service serves, through both SOAP ports of each
// of the four endpoints: every operation answers, and the answers parse into the right values.

import * as soap from 'soap';
import { CONTENT_TYPE, ENDPOINTS, ENVELOPE_NS, MATRIX, PORTS, callOperation, clientOptions, list, operationCases, readRows, type Any, type Call, type OperationCase, type Port, type Rows } from './support/node-soap';
import { startService, type TestService } from './support/service';
import { parse } from './support/xml';

let svc: TestService;
/** One client per endpoint and SOAP version: node-soap picks the version per client, not per port. */
const clients = new Map<string, soap.Client>();
let db: Rows;
let CASES: Record<string, OperationCase>;

beforeAll(async () => {
  svc = await startService();
  for (const e of ENDPOINTS) {
    for (const port of PORTS) {
      clients.set(`${e.service}${port}`, await soap.createClientAsync(`${svc.url}${e.path}?wsdl`, clientOptions(port)));
    }
  }
  db = await readRows(svc.db.knex);
  CASES = operationCases(db);
}, 120_000);

afterAll(async () => {
  await svc?.close();
});

/** Calls `operation` through `<Service><port>` of the served WSDL, as generated code would. */
function call(service: string, port: Port, operation: string, args: Record<string, unknown>): Promise<Call> {
  return callOperation(clients.get(`${service}${port}`)!, service, port, operation, { DevID: svc.key.devId, DevKey: svc.key.devKey, ...args });
}

test('every operation of the served WSDLs has a case here', () => {
  expect(MATRIX).toHaveLength(16);
  expect(Object.keys(CASES).sort()).toEqual(ENDPOINTS.flatMap((e) => [...e.operations]).sort());
});

describe.each(ENDPOINTS.map((e) => [e.service, e] as const))('%s', (service, endpoint) => {
  test('the served WSDL gives node-soap exactly the two SOAP ports, at the address the client used', () => {
    for (const port of PORTS) {
      const client = clients.get(`${service}${port}`)!;
      const description = client.describe() as Any;
      expect(Object.keys(description)).toEqual([service]);
      expect(Object.keys(description[service]).sort()).toEqual([`${service}Soap`, `${service}Soap12`]);
      expect(Object.keys(description[service][`${service}${port}`]).sort()).toEqual([...endpoint.operations].sort());
      const ports = (client as Any).wsdl.definitions.services[service].ports;
      expect(ports[`${service}${port}`].location).toBe(`${svc.url}${endpoint.path}`);
    }
  });
});

describe.each(MATRIX)('%s.%s', (_port, operation, service, port) => {
  test('answers through node-soap with the right records', async () => {
    const { result, requestHeaders, requestXml, responseContentType } = await call(service, port, operation, CASES[operation].args);
    // what node-soap sent: the version of the port
    const sentType = requestHeaders['Content-Type'];
    if (port === 'Soap12') {
      expect(sentType).toBe(`application/soap+xml; charset=utf-8; action="SVAPI/${operation}"`);
      expect(requestHeaders.SOAPAction).toBeUndefined();
    } else {
      expect(sentType).toBe('text/xml; charset=utf-8');
      expect(requestHeaders.SOAPAction).toBe(`"SVAPI/${operation}"`);
    }
    expect(parse(requestXml).uri).toBe(ENVELOPE_NS[port]);
    // what the service answered: that version's content type
    expect(responseContentType).toBe(CONTENT_TYPE[port]);
    await CASES[operation].check(result);
  });
});

describe.each(PORTS)('Hunting%s faults', (port) => {
  test('an unknown MonsterID comes back as a fault node-soap reports, with the ServiceError detail', async () => {
    const error: Any = await call('Hunting', port, 'GetMonster', { MonsterID: 987654321 }).then(
      () => undefined,
      (e) => e.cause,
    );
    expect(error).toBeDefined();
    const fault = error.root.Envelope.Body.Fault;
    if (port === 'Soap') {
      expect(fault.faultcode).toBe('soap:Client');
      expect(fault.detail.ServiceError.Code).toBe('NotFound');
    } else {
      expect(fault.Code.Value).toBe('env:Sender');
      expect(fault.Detail.ServiceError.Code).toBe('NotFound');
    }
    expect(error.response.status).toBe(port === 'Soap' ? 500 : 400);
  });
});

test('a monster without description comes back without one (xsi:nil), the rest intact', async () => {
  const bare = [...db.monsters.values()].find((m) => m.description === null && m.item_picture_url === null);
  expect(bare).toBeDefined();
  for (const port of PORTS) {
    const { result } = await call('Hunting', port, 'GetMonster', { MonsterID: bare.monster_id });
    expect(result.GetMonsterResult.MonsterName).toBe(bare.monster_name);
    expect(result.GetMonsterResult.MonsterID).toBe(bare.monster_id);
    expect(result.GetMonsterResult.Description ?? null).toBeNull();
  }
});

test('a search without matches is an empty result, not an error', async () => {
  for (const port of PORTS) {
    const { result } = await call('Weapons', port, 'GetWeapons', { SearchWord: 'no weapon is called this' });
    expect(list(result.GetWeaponsResult, 'Weapon')).toEqual([]);
  }
});
