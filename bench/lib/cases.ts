/** The benchmark's requests: four operations, each over SOAP 1.1, SOAP 1.2 and HTTP GET. */

import { ADJECTIVES } from '../../src/generate/words';
import { SOAP11_NS, SOAP12_NS, SOAP_CONTENT_TYPES, XML_DECL, XSD_NS, XSI_NS } from '../../src/xml/vocabulary';

export type Binding = 'SOAP 1.1' | 'SOAP 1.2' | 'HTTP GET';
export const BINDINGS: Binding[] = ['SOAP 1.1', 'SOAP 1.2', 'HTTP GET'];

export const NAMESPACE = 'SVAPI';

export interface Operation {
  /** Short label for the table. */
  label: string;
  name: string;
  path: string;
  params: [string, string][];
  /** Element name of one record in the response (counted to check the answer). */
  record: string;
}

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface BenchCase {
  name: string;
  operation: Operation;
  binding: Binding;
  request: Request;
}

/** Per-dataset parameters: the rare search word and the monster whose globals are read. */
export interface DatasetProfile {
  monsterId: number;
  globalsMonsterId: number;
  searchWord: string;
  /** Words in many names (the uncached searches draw from them at random). */
  commonWords: readonly string[];
}

export const PROFILES: Record<string, DatasetProfile> = {
  // seeds/data: "Chip" is in 7 of the 48 weapon names; monster 1 has only 56 globals, monster 5 has 209.
  sample: { monsterId: 1, globalsMonsterId: 5, searchWord: 'Chip', commonWords: ['a', 'e', 'o', 'an', 'er', 'in', 'Oil'] },
  // svapi generate: "Zephyr" is in exactly 10 weapon names at every scale; monster 1 has thousands of globals.
  // The adjectives start item and weapon names: each is in about 220 of the 10,000 items and 20 to 70
  // of the 2,000 weapons at scale 10.
  generated: { monsterId: 1, globalsMonsterId: 1, searchWord: 'Zephyr', commonWords: ADJECTIVES },
};

export function operations(p: DatasetProfile): Operation[] {
  return [
    { label: 'GetMonster', name: 'GetMonster', path: '/API/hunting.asmx', params: [['MonsterID', String(p.monsterId)]], record: 'MonsterID' },
    { label: `GetWeapons "${p.searchWord}"`, name: 'GetWeapons', path: '/api/weapons.asmx', params: [['SearchWord', p.searchWord]], record: 'Weapon' },
    { label: 'FindItems ""', name: 'FindItems', path: '/api/item.asmx', params: [['SearchWord', '']], record: 'Item' },
    {
      label: 'GetMonsterGlobals 100', name: 'GetMonsterGlobals', path: '/API/hunting.asmx',
      params: [['MonsterID', String(p.globalsMonsterId)], ['NumberOfGlobals', '100']], record: 'HuntingGlobal',
    },
  ];
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function buildRequest(op: Operation, binding: Binding, devId: number, devKey: string): Request {
  const params: [string, string][] = [['DevID', String(devId)], ['DevKey', devKey], ...op.params];
  if (binding === 'HTTP GET') {
    return { method: 'GET', path: `${op.path}/${op.name}?${new URLSearchParams(params)}`, headers: {} };
  }
  const soap11 = binding === 'SOAP 1.1';
  const inner = params.map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`).join('');
  const body = XML_DECL
    + `<soap:Envelope xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}" xmlns:soap="${soap11 ? SOAP11_NS : SOAP12_NS}">`
    + `<soap:Body><${op.name} xmlns="${NAMESPACE}">${inner}</${op.name}></soap:Body></soap:Envelope>`;
  const headers: Record<string, string> = soap11
    ? { 'content-type': SOAP_CONTENT_TYPES['1.1'], soapaction: `"${NAMESPACE}/${op.name}"` }
    : { 'content-type': SOAP_CONTENT_TYPES['1.2'] };
  return { method: 'POST', path: op.path, headers, body };
}

export function buildCases(profile: DatasetProfile, devId: number, devKey: string): BenchCase[] {
  return operations(profile).flatMap((operation) => BINDINGS.map((binding) => ({
    name: `${operation.label} / ${binding}`,
    operation,
    binding,
    request: buildRequest(operation, binding, devId, devKey),
  })));
}

/** Records of `element` in a response (opening tags, any prefix). */
export function countRecords(xml: string, element: string): number {
  return (xml.match(new RegExp(`<(?:[\\w.-]+:)?${element}[\\s>/]`, 'g')) ?? []).length;
}
