// A SoapEnvelopeReader reuses one parser between requests (src/xml/envelope.ts). Whatever came
// before, refused or half-read, must not leak into the next request's reading.

import { SoapEnvelopeReader } from '../src/xml/envelope';

const reader = new SoapEnvelopeReader();
const parseSoapRequest: SoapEnvelopeReader['read'] = (xml, version) => reader.read(xml, version);

const V11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const V12 = 'http://www.w3.org/2003/05/soap-envelope';
const envelope = (ns: string, body: string) => `<?xml version="1.0"?><s:Envelope xmlns:s="${ns}"><s:Body>${body}</s:Body></s:Envelope>`;
const getMonster = (id: string) => `<GetMonster xmlns="SVAPI"><DevID>1</DevID><DevKey>k</DevKey><MonsterID>${id}</MonsterID></GetMonster>`;

test.each([
  ['a DOCTYPE', `<!DOCTYPE x [<!ENTITY a "b">]>${envelope(V11, getMonster('1'))}`, /DOCTYPE/],
  ['a document cut off inside a parameter', envelope(V11, getMonster('1')).slice(0, 180), /well-formed/],
  ['an envelope of the other version', envelope(V12, getMonster('1')), /version/i],
  ['nesting beyond the limit', envelope(V11, `<GetMonster xmlns="SVAPI">${'<a>'.repeat(40)}${'</a>'.repeat(40)}</GetMonster>`), /nested deeper/],
  ['a processing instruction inside the body', envelope(V11, `<?pi x?>${getMonster('1')}`), /Processing instructions/],
])('after %s is refused, the next message reads as if it came first', (_what, bad, reason) => {
  expect(() => parseSoapRequest(bad, '1.1')).toThrow(reason);
  expect(parseSoapRequest(envelope(V11, getMonster('7')), '1.1')).toEqual({
    operation: 'GetMonster', operationNamespace: 'SVAPI', params: { DevID: '1', DevKey: 'k', MonsterID: '7' }, repeated: [],
  });
});

test('consecutive messages of both versions keep their own parameters and repeats', () => {
  const first = parseSoapRequest(envelope(V11, '<GetMonster xmlns="SVAPI"><MonsterID>1</MonsterID><MonsterID>2</MonsterID></GetMonster>'), '1.1');
  const second = parseSoapRequest(envelope(V12, '<FindItems xmlns="SVAPI"><SearchWord>oil</SearchWord></FindItems>'), '1.2');
  expect(first).toEqual({ operation: 'GetMonster', operationNamespace: 'SVAPI', params: { MonsterID: '1' }, repeated: ['MonsterID'] });
  expect(second).toEqual({ operation: 'FindItems', operationNamespace: 'SVAPI', params: { SearchWord: 'oil' }, repeated: [] });
});
