import fs from 'node:fs';
import path from 'node:path';
import { diffAnswers } from '../src/compare/answer-diff';
import { compareContracts } from '../src/compare/contract-diff';
import { readContract } from '../src/compare/wsdl-contract';
import { parseXmlTree } from '../src/compare/xml-tree';

// How `svapi compare` reads two answers and two WSDLs, without services: what counts as the same
// to a client and what does not.

const LEGACY_WSDL = fs.readFileSync(path.join(__dirname, 'fixtures/legacy-asmx/hunting.wsdl'), 'utf8');
const schema = readContract(LEGACY_WSDL);
const NS = 'http://tempuri.org/';

function diff(legacy: string, svapi: string, svapiNs = NS) {
  return diffAnswers(parseXmlTree(legacy), parseXmlTree(svapi), { legacyNs: NS, svapiNs, schemas: [schema] });
}

const monsters = (records: string, attrs = 'xmlns="http://tempuri.org/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"') =>
  `<?xml version="1.0" encoding="utf-8"?><ArrayOfMonster ${attrs}>${records}</ArrayOfMonster>`;
const monster = (id: number, name: string, description = '<Description xsi:nil="true" />') =>
  `<Monster><MonsterName>${name}</MonsterName><MonsterID>${id}</MonsterID>${description}</Monster>`;

const globals = (timeStamp: string, value: string) => `<?xml version="1.0"?>
<ArrayOfHuntingGlobal xmlns="http://tempuri.org/"><HuntingGlobal><TimeStamp>${timeStamp}</TimeStamp><GlobalValue>${value}</GlobalValue></HuntingGlobal></ArrayOfHuntingGlobal>`;

describe('answers compared as a client reads them', () => {
  test('prefixes, where namespaces are declared, their order and indentation do not matter', () => {
    const svapi = monsters(monster(1, 'Argonaut') + monster(2, 'Atrox'));
    const asmx = `<?xml version="1.0" encoding="utf-8"?>
<t:ArrayOfMonster xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns:t="http://tempuri.org/">
  <t:Monster>
    <t:MonsterName>Argonaut</t:MonsterName>
    <t:MonsterID>1</t:MonsterID>
    <t:Description i:nil="true" />
  </t:Monster>
  <Monster xmlns="http://tempuri.org/">
    <MonsterName>Atrox</MonsterName>
    <MonsterID>  2 </MonsterID>
    <Description xmlns:x="http://www.w3.org/2001/XMLSchema-instance" x:nil="1"></Description>
  </Monster>
</t:ArrayOfMonster>`;
    expect(diff(asmx, svapi)).toEqual([]);
  });

  test("each side's own service namespace counts as the same; any other namespace does not", () => {
    const svapi = monsters(monster(1, 'Argonaut'), 'xmlns="SVAPI" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"');
    expect(diff(monsters(monster(1, 'Argonaut')), svapi, 'SVAPI')).toEqual([]);
    expect(diff(monsters(monster(1, 'Argonaut')), svapi, NS)).toEqual([
      expect.objectContaining({ path: '/ArrayOfMonster', what: 'element', legacy: `{{service namespace}}ArrayOfMonster`, svapi: '{SVAPI}ArrayOfMonster' }),
    ]);
  });

  test('a string is compared exactly, whitespace included', () => {
    expect(diff(monsters(monster(1, 'Argonaut')), monsters(monster(1, 'Argonaut ')))).toEqual([
      { path: '/ArrayOfMonster/Monster/MonsterName', names: ['ArrayOfMonster', 'Monster', 'MonsterName'], what: 'value', legacy: '"Argonaut"', svapi: '"Argonaut "' },
    ]);
  });

  test('dateTimes by instant, ints by value; a different instant or number differs', () => {
    expect(diff(globals('2026-11-20T10:33:04.500+01:00', '051'), globals('2026-11-20T09:33:04.5Z', '51'))).toEqual([]);
    expect(diff(globals('2026-11-20T09:33:04Z', '51'), globals('2026-11-20T09:33:05Z', '51'))).toEqual([
      expect.objectContaining({ path: '/ArrayOfHuntingGlobal/HuntingGlobal/TimeStamp', legacy: '"2026-11-20T09:33:04Z"', svapi: '"2026-11-20T09:33:05Z"' }),
    ]);
    expect(diff(globals('2026-11-20T09:33:04', '51'), globals('2026-11-20T09:33:04Z', '51'))).toHaveLength(1);
    expect(diff(globals('2026-11-20T09:33:04Z', '51'), globals('2026-11-20T09:33:04Z', '-51'))).toHaveLength(1);
  });

  test('nil, empty and absent are three things', () => {
    const nil = monster(1, 'A');
    const empty = monster(1, 'A', '<Description />');
    const absent = monster(1, 'A', '');
    expect(diff(monsters(nil), monsters(empty))).toEqual([expect.objectContaining({ what: 'nil', legacy: 'nil', svapi: '<Description> ""' })]);
    expect(diff(monsters(nil), monsters(absent))).toEqual([expect.objectContaining({ what: 'only in legacy', path: '/ArrayOfMonster/Monster/Description' })]);
    expect(diff(monsters(absent), monsters(empty))).toEqual([expect.objectContaining({ what: 'only in svapi' })]);
  });

  test('list order counts; one missing record is one difference, not a shifted list', () => {
    const list = [1, 2, 3, 4, 5].map((i) => monster(i, `M${i}`));
    expect(diff(monsters(list.join('')), monsters([list[1], list[0], ...list.slice(2)].join('')))).not.toEqual([]);
    expect(diff(monsters(list.join('')), monsters([...list.slice(0, 2), ...list.slice(3)].join('')))).toEqual([
      expect.objectContaining({ what: 'only in legacy', path: '/ArrayOfMonster/Monster[3]', legacy: '<Monster> (3 elements, MonsterName "M3")' }),
    ]);
  });
});

describe('decimals by value', () => {
  const weapons = readContract(fs.readFileSync(path.join(__dirname, 'fixtures/legacy-asmx/weapons.wsdl'), 'utf8'));
  const weapon = (decay: string) => `<ArrayOfWeapon xmlns="http://tempuri.org/"><Weapon><WeaponName>W</WeaponName><Decay>${decay}</Decay></Weapon></ArrayOfWeapon>`;
  const d = (a: string, b: string) => diffAnswers(parseXmlTree(weapon(a)), parseXmlTree(weapon(b)), { legacyNs: NS, svapiNs: NS, schemas: [weapons] });

  test.each([['0.10', '0.1'], ['1.5000', '+1.5'], ['00012345678.12345', '12345678.12345'], ['-0.0', '0']])('%s = %s', (a, b) => {
    expect(d(a, b)).toEqual([]);
  });

  test.each([['0.1', '0.11'], ['1', '-1'], ['0.1', '1E-1']])('%s differs from %s', (a, b) => {
    expect(d(a, b)).toHaveLength(1);
  });
});

describe('WSDLs compared as a generated client sees them', () => {
  const findings = (svapiWsdl: string) => compareContracts('/API/hunting.asmx', schema, readContract(svapiWsdl), ['GetMonster', 'GetMonsters']);

  test('the same WSDL with other prefixes and attribute order is the same', () => {
    const other = LEGACY_WSDL.replace(/<s:element (minOccurs="\d" maxOccurs="\w+") (name="\w+")/g, '<s:element $2 $1')
      .replace(/(<\/?|type=")s:/g, '$1xs:').replace('xmlns:s=', 'xmlns:xs=');
    expect(other).not.toBe(LEGACY_WSDL);
    expect(findings(other)).toEqual([]);
  });

  test('minOccurs, nillable, field order, a type and a soapAction are each named', () => {
    const changed = LEGACY_WSDL
      .replace('<s:element minOccurs="1" maxOccurs="1" name="Description" nillable="true" type="tns:Description" />',
        '<s:element minOccurs="0" maxOccurs="1" name="Description" type="tns:Description" />')
      .replace(/(<s:element minOccurs="0" maxOccurs="1" name="PlayerName" type="s:string" \/>)\s*(<s:element minOccurs="1" maxOccurs="1" name="PlayerID" type="s:int" \/>)/, '$2$1')
      .replace('name="GlobalValue" type="s:int"', 'name="GlobalValue" type="s:long"')
      .replace('soapAction="http://tempuri.org/GetMonster"', 'soapAction="urn:other/GetMonster"');
    expect(findings(changed)).toEqual(expect.arrayContaining([
      expect.objectContaining({ where: 'type Monster, field Description', kind: 'minOccurs', legacy: '1', svapi: '0', severity: 'differs' }),
      expect.objectContaining({ where: 'type Monster, field Description', kind: 'nillable', legacy: 'true', svapi: 'false' }),
      expect.objectContaining({ where: 'type Player', kind: 'field order', legacy: 'PlayerName, PlayerID, IsTeam', svapi: 'PlayerID, PlayerName, IsTeam' }),
      expect.objectContaining({ where: 'type HuntingGlobal, field GlobalValue', kind: 'type', legacy: 's:int', svapi: 's:long' }),
      expect.objectContaining({ where: 'GetMonster (SOAP 1.1)', kind: 'soapAction', legacy: 'http://tempuri.org/GetMonster', svapi: 'urn:other/GetMonster' }),
    ]));
  });

  test('another namespace: one finding for it, one for the soapActions that follow from it', () => {
    const other = LEGACY_WSDL.replaceAll('http://tempuri.org/', 'SVAPI/');
    expect(findings(other).map((f) => [f.kind, f.legacy, f.svapi])).toEqual([
      ['target namespace', NS, 'SVAPI/'],
      ['soapAction (follows the namespace)', 'http://tempuri.org/<Operation>', 'SVAPI/<Operation>'],
    ]);
  });

  test('extra operations on the legacy side are listed, not differences; an operation svapi lacks is one', () => {
    const fewer = LEGACY_WSDL.replace(/<wsdl:operation name="GetLandareaGlobals">\s*<soap:operation[\s\S]*?<\/wsdl:operation>/, '');
    expect(findings(fewer)).toEqual([
      expect.objectContaining({ where: 'GetLandareaGlobals (SOAP 1.1)', kind: 'legacy-only operation (not compared)', severity: 'note' }),
    ]);
    const known = compareContracts('/API/hunting.asmx', schema, readContract(fewer), ['GetLandareaGlobals']);
    expect(known).toEqual([expect.objectContaining({ kind: 'operation missing on svapi', severity: 'differs' })]);
  });
});
