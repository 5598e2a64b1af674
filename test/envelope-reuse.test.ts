// A SoapEnvelopeReader reuses one parser between requests (src/xml/envelope.ts). Whatever came
// before, refused or half-read, must not leak into the next request's reading.

import { SoapEnvelopeReader } from '../src/xml/envelope';
import { envelopeAround as envelope } from './support/bindings';

const reader = new SoapEnvelopeReader();
const parseSoapRequest: SoapEnvelopeReader['read'] = (xml, version) => reader.read(xml, version);

const V11 = '1.1';
const V12 = '1.2';
/** The document up to and including `part`. */
const cutInside = (xml: string, part: string) => xml.slice(0, xml.indexOf(part) + part.length);
const getMonster = (id: string) => `<GetMonster xmlns="SVAPI"><DevID>1</DevID><DevKey>k</DevKey><MonsterID>${id}</MonsterID></GetMonster>`;

test.each([
  ['a DOCTYPE', `<!DOCTYPE x [<!ENTITY a "b">]>${envelope(V11, getMonster('1'))}`, /DOCTYPE/],
  ['a document cut off inside a parameter', cutInside(envelope(V11, getMonster('1')), '<MonsterID>1'), /well-formed/],
  ['an envelope of the other version', envelope(V12, getMonster('1')), /version/i],
  ['nesting beyond the limit', envelope(V11, `<GetMonster xmlns="SVAPI">${'<a>'.repeat(40)}${'</a>'.repeat(40)}</GetMonster>`), /nested deeper/],
  ['a processing instruction inside the body', envelope(V11, `<?pi x?>${getMonster('1')}`), /Processing instructions/],
])('after %s is refused, the next message reads as if it came first', (_what, bad, reason) => {
  expect(() => parseSoapRequest(bad, ['1.1'])).toThrow(reason);
  expect(parseSoapRequest(envelope(V11, getMonster('7')), ['1.1'])).toEqual({
    version: '1.1', operation: 'GetMonster', operationNamespace: 'SVAPI', params: { DevID: '1', DevKey: 'k', MonsterID: '7' }, repeated: [],
  });
});

test('consecutive messages of both versions keep their own parameters and repeats', () => {
  const first = parseSoapRequest(envelope(V11, '<GetMonster xmlns="SVAPI"><MonsterID>1</MonsterID><MonsterID>2</MonsterID></GetMonster>'), ['1.1']);
  const second = parseSoapRequest(envelope(V12, '<FindItems xmlns="SVAPI"><SearchWord>oil</SearchWord></FindItems>'), ['1.2']);
  expect(first).toEqual({ version: '1.1', operation: 'GetMonster', operationNamespace: 'SVAPI', params: { MonsterID: '1' }, repeated: ['MonsterID'] });
  expect(second).toEqual({ version: '1.2', operation: 'FindItems', operationNamespace: 'SVAPI', params: { SearchWord: 'oil' }, repeated: [] });
});
