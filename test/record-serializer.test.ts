// The XML serializer writes each record type with a function generated from the field metadata
// (src/xml/records.ts). These are the cases the sample data does not reach: every one is
// compared with the document written out by hand.

import type { HuntingGlobal, Item, Monster, Weapon } from '../src/generated/records';
import { RecordSerializer } from '../src/xml/records';
import { bodyOf } from '../src/http/answer';

const serializer = new RecordSerializer();
const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
const DECL = '<?xml version="1.0" encoding="utf-8"?>';

const weapon = (fields: Partial<Weapon>): Weapon => ({
  WeaponID: 7, Description: null,
  MinHitLevel: '1.5', MaxHitLevel: '2', MinDmgLevel: '0', MaxDmgLevel: '10.25', Weight: '3', Range: '40.5', ImpactRadius: '0',
  AttacksMin: '60', Decay: '0.105', AmmoBurn: 12, TTValue: '99.99', MinTTValue: '1', TotalUses: 5000, SIBWeapon: false, ItemID: 70,
  ...fields,
});
const NUMBERS = '<MinHitLevel>1.5</MinHitLevel><MaxHitLevel>2</MaxHitLevel><MinDmgLevel>0</MinDmgLevel><MaxDmgLevel>10.25</MaxDmgLevel>'
  + '<Weight>3</Weight><Range>40.5</Range><ImpactRadius>0</ImpactRadius><AttacksMin>60</AttacksMin><Decay>0.105</Decay>'
  + '<AmmoBurn>12</AmmoBurn><TTValue>99.99</TTValue><MinTTValue>1</MinTTValue><TotalUses>5000</TotalUses><SIBWeapon>false</SIBWeapon>';

test('omitted (undefined), nil (null), empty and escaped values, an empty list, null and nested items, in schema order', () => {
  const weapons: (Weapon | null)[] = [
    weapon({
      // Keys in another order than the schema's: the schema's order is written.
      ItemID: 70,
      WeaponName: 'A & B <"Mk. 2"> \r雷電',
      Description: { ItemPictureURL: 'http://x/y?a=1&b=2' },
      DamageTypes: [{ Damage: '5.5', DamageTypeName: 'Burn' }, null as never, { Damage: '0' }],
      HitProfession: { ProfessionID: 3, ProfessionName: '' },
      DmgProfession: { ProfessionID: 4 },
      SIBWeapon: true,
    }),
    null,
    weapon({ WeaponName: '', Description: null, DamageTypes: [] }),
  ];
  expect(serializer.httpDocument('GetWeapons', weapons as Weapon[], 'urn:x')).toBe(
    `${DECL}<ArrayOfWeapon ${XSI} xmlns="urn:x">`
    + '<Weapon><WeaponID>7</WeaponID><WeaponName>A &amp; B &lt;"Mk. 2"&gt; &#13;雷電</WeaponName>'
    + '<Description><ItemPictureURL>http://x/y?a=1&amp;b=2</ItemPictureURL></Description>'
    + '<DamageTypes><DamageType><Damage>5.5</Damage><DamageTypeName>Burn</DamageTypeName></DamageType>'
    + '<DamageType xsi:nil="true" /><DamageType><Damage>0</Damage></DamageType></DamageTypes>'
    + NUMBERS.replace('<SIBWeapon>false', '<SIBWeapon>true')
    + '<HitProfession><ProfessionID>3</ProfessionID><ProfessionName /></HitProfession>'
    + '<DmgProfession><ProfessionID>4</ProfessionID></DmgProfession><ItemID>70</ItemID></Weapon>'
    + '<Weapon xsi:nil="true" />'
    + `<Weapon><WeaponID>7</WeaponID><WeaponName /><Description xsi:nil="true" /><DamageTypes />${NUMBERS}<ItemID>70</ItemID></Weapon>`
    + '</ArrayOfWeapon>\n',
  );
});

test('a nested record with every field omitted is an empty element; a single record is the SOAP result itself', () => {
  const item: Item = { ItemID: 1, Description: {}, TTValue: '0.01', Category: { CategoryID: 2, CategoryName: 'Ore\uFFFE' } };
  expect(serializer.soapResult('FindItems', [item], 'urn:"x"')).toBe(
    `<FindItemsResult xmlns="urn:&quot;x&quot;" ${XSI}>`
    + '<Item><ItemID>1</ItemID><Description /><TTValue>0.01</TTValue><Category><CategoryName>Ore\uFFFD</CategoryName><CategoryID>2</CategoryID></Category></Item>'
    + '</FindItemsResult>',
  );
  expect(serializer.soapResult('GetMonster', { MonsterID: 5, MonsterName: 'X', Description: null }, 'urn:x')).toBe(
    `<GetMonsterResult xmlns="urn:x" ${XSI}><MonsterName>X</MonsterName><MonsterID>5</MonsterID><Description xsi:nil="true" /></GetMonsterResult>`,
  );
  expect(serializer.httpDocument('GetAuctionCategories', [], 'urn:x')).toBe(`${DECL}<ArrayOfAuctionCategory ${XSI} xmlns="urn:x"></ArrayOfAuctionCategory>\n`);
});

test('a member the schema requires and lets be nil (minOccurs="1" nillable="true") is sent as nil when the record lacks it', () => {
  // The operations always set these; a record that lacks one (undefined) still gets the element.
  const monster = { MonsterID: 5 } as unknown as Monster;
  expect(serializer.soapResult('GetMonster', monster, 'urn:x')).toBe(
    `<GetMonsterResult xmlns="urn:x" ${XSI}><MonsterID>5</MonsterID><Description xsi:nil="true" /></GetMonsterResult>`,
  );
  const global = {
    TimeStamp: '2026-01-02T03:04:05Z', GlobalValue: 9,
    Landarea: { AreaID: 3, Planet: { PlanetID: 4 } },
  } as unknown as HuntingGlobal;
  expect(serializer.httpDocument('GetMonsterGlobals', [global], 'urn:x')).toBe(
    `${DECL}<ArrayOfHuntingGlobal ${XSI} xmlns="urn:x"><HuntingGlobal><TimeStamp>2026-01-02T03:04:05Z</TimeStamp><GlobalValue>9</GlobalValue>`
    + '<Landarea><AreaID>3</AreaID><Planet><PlanetID>4</PlanetID><Description xsi:nil="true" /></Planet></Landarea></HuntingGlobal></ArrayOfHuntingGlobal>\n',
  );
  const item = { ItemID: 1, TTValue: '1' } as unknown as Item;
  expect(serializer.soapResult('FindItems', [item], 'urn:x')).toContain('<ItemID>1</ItemID><Description xsi:nil="true" /><TTValue>1</TTValue>');
  // A plain optional string (ItemPictureURL, minOccurs="0") is still left out when absent.
  expect(serializer.soapResult('GetMonster', { MonsterID: 5, Description: {} }, 'urn:x')).toContain('<Description />');
});

test('a long list is written as UTF-8 bytes record by record, the same bytes as the whole document encoded; a short one as text', () => {
  // Names beyond Latin-1 and astral characters in some records only, escapes and nil in others.
  const names = ['Camp Ñandú', '小明 "Flint" Tallis', 'A & B <c>', 'plain', '𝄞 clef', ''];
  const globals = Array.from({ length: 400 }, (_, i) => ({
    Monster: { MonsterName: names[i % names.length], MonsterID: i, Description: i % 3 ? null : { Description: `d${i}` } },
    TimeStamp: '2026-01-02T03:04:05Z', GlobalType: { GlobalTypeName: 'Kill', GlobalTypeID: 1 }, GlobalValue: `${i}.5`,
    Player: { PlayerName: names[(i + 1) % names.length], PlayerID: i, IsTeam: i % 2 === 0 },
    Landarea: { AreaName: 'Area', AreaID: 3, Planet: null },
  })) as unknown as HuntingGlobal[];
  const text = serializer.httpDocument('GetMonsterGlobals', globals, 'urn:x');
  const body = bodyOf(serializer.httpDocumentParts('GetMonsterGlobals', globals, 'urn:x', []));
  expect(Buffer.isBuffer(body)).toBe(true);
  expect((body as Buffer).equals(Buffer.from(text))).toBe(true);
  const soap = bodyOf(serializer.soapResultParts('GetMonsterGlobals', globals, 'urn:x', ['<head>']));
  expect((soap as Buffer).toString()).toBe(`<head>${serializer.soapResult('GetMonsterGlobals', globals, 'urn:x')}`);
  expect(bodyOf(serializer.httpDocumentParts('GetMonsterGlobals', globals.slice(0, 2), 'urn:x', []))).toBe(
    serializer.httpDocument('GetMonsterGlobals', globals.slice(0, 2), 'urn:x'),
  );
});
