// The eight operations over SOAP 1.1 and SOAP 1.2, checked field by field against what the
// database holds (expectations are computed here from the tables, not through the service's
// queries), plus CONTRACT §4 values, §5 semantics and the served schema.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { envelope, SOAP11_NS, SOAP12_NS, XML_DECL } from './support/bindings';
import { startService, type TestService } from './support/service';
import { child, descendants, isNil, parseXml, serialize, shape, XSI_NS, type Shape, type XmlElement } from './support/xml-tree';
import { assertSchemaValid, checkSchemas } from './support/xmllint';

const NS = 'SVAPI';
type Version = '1.1' | '1.2';
const VERSIONS: Version[] = ['1.1', '1.2'];
const ENV_NS: Record<Version, string> = { '1.1': SOAP11_NS, '1.2': SOAP12_NS };
const RESPONSE_TYPE: Record<Version, string> = {
  '1.1': 'text/xml; charset=utf-8',
  '1.2': 'application/soap+xml; charset=utf-8',
};

const PATHS = {
  GetWeapons: '/api/weapons.asmx',
  FindItems: '/api/item.asmx',
  GetMonsters: '/API/hunting.asmx',
  GetMonster: '/API/hunting.asmx',
  GetMonsterGlobals: '/API/hunting.asmx',
  GetPlayerGlobals: '/API/hunting.asmx',
  GetLandareaGlobals: '/API/hunting.asmx',
  GetAuctionCategories: '/api/auction.asmx',
} as const;
type Op = keyof typeof PATHS;
type Params = [string, string][];

const MAX_GLOBALS = 40;

let svc: TestService;
let tmp: string;
const schemaFiles = new Map<string, string>();

// ---------------------------------------------------------------------------------------------
// Calling the service

const credentials = (): Params => [['DevID', String(svc.key.devId)], ['DevKey', svc.key.devKey]];

async function soapCall(version: Version, op: Op, params: Params) {
  const headers: Record<string, string> = version === '1.1'
    ? { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}/${op}"` }
    : { 'Content-Type': `application/soap+xml; charset=utf-8; action="${NS}/${op}"` };
  const res = await fetch(svc.url + PATHS[op], { method: 'POST', headers, body: envelope(version, op, [...credentials(), ...params]) });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/**
 * A successful call: 200, the version's content type and envelope, the XML declaration first,
 * every prefix declared, everything inside the response in the service namespace, and the
 * `<Op>Response` valid against the schema served in the endpoint's WSDL. Returns `<Op>Result`.
 */
async function result(version: Version, op: Op, params: Params = []): Promise<XmlElement> {
  const res = await soapCall(version, op, params);
  if (res.status !== 200) throw new Error(`${op} answered ${res.status}: ${res.text}`);
  expect(res.type).toBe(RESPONSE_TYPE[version]);
  expect(res.text.startsWith(XML_DECL)).toBe(true);
  // The Envelope's start tag has its attributes one space apart (node-soap's template had two before xmlns:tns).
  const envelopeTag = res.text.slice(XML_DECL.length, res.text.indexOf('>', XML_DECL.length) + 1);
  expect(envelopeTag).toMatch(/^<\w+:Envelope /);
  expect(envelopeTag).not.toContain('  ');
  const envelopeEl = parseXml(res.text).root;
  expect([envelopeEl.local, envelopeEl.uri]).toEqual(['Envelope', ENV_NS[version]]);
  const body = child(envelopeEl, 'Body', ENV_NS[version]);
  expect(body.children.map((c) => c.local)).toEqual([`${op}Response`]);
  const response = body.children[0];
  expect(response.children.map((c) => c.local)).toEqual([`${op}Result`]);
  const foreign = descendants(response).filter((e) => e.uri !== NS).map((e) => `${e.name} in ${e.uri}`);
  expect(foreign).toEqual([]);
  validate(PATHS[op], serialize(response));
  return response.children[0];
}

/** The records (or, for GetMonster, the fields) inside a result, as comparable shapes. */
const shapes = (resultEl: XmlElement): Shape[] => resultEl.children.map(shape);

async function fault(version: Version, op: Op, params: Params) {
  const res = await soapCall(version, op, params);
  const envelopeEl = parseXml(res.text).root;
  const faultEl = child(child(envelopeEl, 'Body', ENV_NS[version]), 'Fault', ENV_NS[version]);
  const detail = faultEl.children.find((c) => c.local === 'detail' || c.local === 'Detail')!;
  const error = child(detail, 'ServiceError', NS);
  validate(PATHS[op], serialize(error)); // the detail is the WSDL's declared fault element
  const text = (local: string) => error.children.find((c) => c.local === local)?.text;
  return { status: res.status, code: text('Code'), parameter: text('Parameter'), message: text('Message') };
}

/** A caller's fault: 500 on SOAP 1.1, 400 on SOAP 1.2, with the ServiceError detail. */
async function expectCallerFault(version: Version, op: Op, params: Params, code: string, parameter?: string) {
  const f = await fault(version, op, params);
  expect({ status: f.status, code: f.code, parameter: f.parameter })
    .toEqual({ status: version === '1.1' ? 500 : 400, code, parameter });
  return f;
}

// ---------------------------------------------------------------------------------------------
// The served schema

async function loadSchemas() {
  for (const p of new Set(Object.values(PATHS))) {
    // ?wsdl=faults: the schema that also declares the faults' ServiceError detail (?wsdl leaves it out, as ASMX did).
    const res = await fetch(`${svc.url}${p}?wsdl=faults`);
    expect(res.status).toBe(200);
    const defs = parseXml(await res.text()).root;
    const types = child(defs, 'types');
    const schema = child(types, 'schema', 'http://www.w3.org/2001/XMLSchema');
    const file = path.join(tmp, `${p.replace(/\W+/g, '_')}.xsd`);
    fs.writeFileSync(file, serialize(schema));
    schemaFiles.set(p, file);
  }
}

/** Throws with xmllint's report unless `xml` is valid against the schema served on `endpoint`. */
const validate = (endpoint: string, xml: string) =>
  assertSchemaValid(schemaFiles.get(endpoint)!, xml, `not valid against the schema served at ${endpoint}`);

// ---------------------------------------------------------------------------------------------
// Expectations from the database

/* eslint-disable @typescript-eslint/no-explicit-any -- database rows */
type Row = Record<string, any>;

interface Global {
  monster: number;
  type: number;
  value: number;
  player: number;
  area: number;
  /** Microseconds since the epoch, exact. */
  us: bigint;
}

const db = {
  weapons: [] as Row[],
  damage: new Map<number, Row[]>(),
  professions: new Map<number, Row>(),
  items: [] as Row[],
  categories: new Map<number, Row>(),
  monsters: [] as Row[],
  planets: new Map<number, Row>(),
  areas: new Map<number, Row>(),
  players: new Map<number, Row>(),
  types: new Map<number, Row>(),
  globals: [] as Global[],
  auction: [] as Row[],
};

async function loadDatabase() {
  const k = svc.db.knex;
  const byId = (rows: Row[], id: string) => new Map(rows.map((r) => [r[id] as number, r]));
  db.weapons = await k('weapons');
  for (const d of await k('weapon_damage')) db.damage.set(d.weapon_id, [...(db.damage.get(d.weapon_id) ?? []), d]);
  db.professions = byId(await k('professions'), 'profession_id');
  db.items = await k('items');
  db.categories = byId(await k('item_categories'), 'category_id');
  db.monsters = await k('monsters');
  db.planets = byId(await k('planets'), 'planet_id');
  db.areas = byId(await k('landareas'), 'area_id');
  db.players = byId(await k('players'), 'player_id');
  db.types = byId(await k('global_types'), 'global_type_id');
  db.auction = await k('auction_categories');
  const globals = await k('hunting_globals').select(
    'monster_id', 'global_type_id', 'global_value', 'player_id', 'landarea_id',
    k.raw('(extract(epoch from time_stamp) * 1000000)::bigint::text AS us'),
  );
  db.globals = globals.map((g: Row) => ({
    monster: g.monster_id, type: g.global_type_id, value: g.global_value, player: g.player_id, area: g.landarea_id, us: BigInt(g.us),
  }));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** CONTRACT §5: substring, case-insensitive, trimmed; exact, prefix, rest; by lower-case name, then ID. */
function searched(rows: Row[], nameCol: string, idCol: string, word: string): Row[] {
  const w = word.trim().toLowerCase();
  const rank = (n: string) => (n === w ? 0 : n.startsWith(w) ? 1 : 2);
  return rows
    .filter((r) => String(r[nameCol]).toLowerCase().includes(w))
    .sort((a, b) => {
      const na = String(a[nameCol]).toLowerCase();
      const nb = String(b[nameCol]).toLowerCase();
      return rank(na) - rank(nb) || cmp(na, nb) || a[idCol] - b[idCol];
    });
}

/** CONTRACT §5: TimeStamp desc, GlobalValue desc, then PlayerID, MonsterID, GlobalTypeID. */
function newest(filter: (g: Global) => boolean, limit: number): Global[] {
  return db.globals.filter(filter).sort((a, b) =>
    (b.us > a.us ? 1 : b.us < a.us ? -1 : 0) || b.value - a.value || a.player - b.player || a.monster - b.monster || a.type - b.type,
  ).slice(0, limit);
}

/** XSD dateTime in UTC with Z, fractional seconds only when non-zero. */
function utcText(us: bigint): string {
  const whole = new Date(Number(us / 1000000n) * 1000).toISOString().slice(0, 19);
  const frac = us % 1000000n;
  return frac === 0n ? `${whole}Z` : `${whole}.${frac.toString().padStart(6, '0').replace(/0+$/, '')}Z`;
}

const int = (n: number): string => String(n);
const bool = (b: boolean): string => (b ? 'true' : 'false');

function descriptionShape(text: string | null, picture: string | null): Shape {
  if (text === null && picture === null) return ['Description', null];
  const fields: Shape[] = [];
  if (text !== null) fields.push(['Description', text]);
  if (picture !== null) fields.push(['ItemPictureURL', picture]);
  return ['Description', fields];
}

function profession(id: number): Shape[] {
  return [['ProfessionID', int(id)], ['ProfessionName', db.professions.get(id)!.profession_name]];
}

function weaponShape(w: Row): Shape {
  const damage = [...(db.damage.get(w.weapon_id) ?? [])].sort((a, b) => cmp(a.damage_type_name, b.damage_type_name));
  return ['Weapon', [
    ['WeaponID', int(w.weapon_id)],
    ['WeaponName', w.weapon_name],
    descriptionShape(w.description, w.item_picture_url),
    // an empty element (no damage rows) compares as ''
    ['DamageTypes', damage.length ? damage.map((d): Shape => ['DamageType', [['Damage', d.damage], ['DamageTypeName', d.damage_type_name]]]) : ''],
    ['MinHitLevel', w.min_hit_level],
    ['MaxHitLevel', w.max_hit_level],
    ['MinDmgLevel', w.min_dmg_level],
    ['MaxDmgLevel', w.max_dmg_level],
    ['Weight', w.weight],
    ['Range', w.range],
    ['ImpactRadius', w.impact_radius],
    ['AttacksMin', w.attacks_min],
    ['Decay', w.decay],
    ['AmmoBurn', int(w.ammo_burn)],
    ['TTValue', w.tt_value],
    ['MinTTValue', w.min_tt_value],
    ['TotalUses', int(w.total_uses)],
    ['SIBWeapon', bool(w.sib_weapon)],
    ['HitProfession', profession(w.hit_profession_id)],
    ['DmgProfession', profession(w.dmg_profession_id)],
    ['ItemID', int(w.item_id)],
  ]];
}

function itemShape(i: Row): Shape {
  const c = db.categories.get(i.category_id)!;
  return ['Item', [
    ['ItemName', i.item_name],
    ['ItemID', int(i.item_id)],
    descriptionShape(i.description, i.item_picture_url),
    ['TTValue', i.tt_value],
    ['Category', [['CategoryName', c.category_name], ['CategoryID', int(c.category_id)]]],
  ]];
}

function monsterFields(m: Row): Shape[] {
  return [['MonsterName', m.monster_name], ['MonsterID', int(m.monster_id)], descriptionShape(m.description, m.item_picture_url)];
}
const monsterById = (id: number) => db.monsters.find((m) => m.monster_id === id)!;

function globalShape(g: Global): Shape {
  const area = db.areas.get(g.area)!;
  const planet = area.planet_id === null ? undefined : db.planets.get(area.planet_id)!;
  const player = db.players.get(g.player)!;
  return ['HuntingGlobal', [
    ['Monster', monsterFields(monsterById(g.monster))],
    ['TimeStamp', utcText(g.us)],
    ['GlobalType', [['GlobalTypeName', db.types.get(g.type)!.global_type_name], ['GlobalTypeID', int(g.type)]]],
    ['GlobalValue', int(g.value)],
    ['Player', [['PlayerName', player.player_name], ['PlayerID', int(g.player)], ['IsTeam', bool(player.is_team)]]],
    ['Landarea', [
      ['AreaName', area.area_name],
      ['AreaID', int(g.area)],
      planet
        ? ['Planet', [['PlanetName', planet.planet_name], ['PlanetID', int(planet.planet_id)], ['Description', planet.description ? planet.description : null]]]
        : ['Planet', null],
    ]],
  ]];
}

// ---------------------------------------------------------------------------------------------
// Rows added to the sample data (IDs far from the sample's)

const T0 = '2026-11-22T00:00:00Z';

async function insertFixtures() {
  const k = svc.db.knex;
  await k('monsters').insert([
    { monster_id: 9101, monster_name: 'Qzx Text Only', description: 'Only <text> & "quotes"', item_picture_url: null },
    { monster_id: 9102, monster_name: 'Qzx Picture Only', description: null, item_picture_url: 'https://img.example.com/qzx/9102.png?a=1&b=2' },
    { monster_id: 9103, monster_name: 'Qzx Bare', description: null, item_picture_url: null },
    // the sample has an "Atrox" (ID 5): same name in other cases sorts by ID
    { monster_id: 9120, monster_name: 'ATROX', description: null, item_picture_url: null },
    { monster_id: 9121, monster_name: 'atrox', description: null, item_picture_url: null },
    // a name containing the word that sorts before the prefix matches
    { monster_id: 9122, monster_name: 'Alpha Atrox', description: null, item_picture_url: null },
    // characters that are wildcards in LIKE
    { monster_id: 9131, monster_name: 'Esc 100% Wild', description: null, item_picture_url: null },
    { monster_id: 9132, monster_name: 'Esc 100 Percent', description: null, item_picture_url: null },
    { monster_id: 9133, monster_name: 'Esc a_b', description: null, item_picture_url: null },
    { monster_id: 9134, monster_name: 'Esc axb', description: null, item_picture_url: null },
    { monster_id: 9135, monster_name: 'Esc back\\slash', description: null, item_picture_url: null },
    { monster_id: 9136, monster_name: 'Esc backslash', description: null, item_picture_url: null },
  ]);
  await k('planets').insert([
    { planet_id: 9401, planet_name: 'Qzx Empty Planet', description: '' },
    { planet_id: 9402, planet_name: 'Qzx Null Planet', description: null },
  ]);
  await k('landareas').insert([
    { area_id: 9301, area_name: 'Qzx No Planet Area', planet_id: null },
    { area_id: 9302, area_name: 'Qzx Empty Planet Area', planet_id: 9401 },
    { area_id: 9303, area_name: 'Qzx Null Planet Area', planet_id: 9402 },
  ]);
  await k('players').insert([
    { player_id: 9201, player_name: 'Qzx Hunter', is_team: false },
    { player_id: 9202, player_name: 'Qzx Team', is_team: true },
  ]);
  const g = (monster_id: number, time_stamp: string, global_type_id: number, global_value: number, player_id: number, landarea_id: number) =>
    ({ monster_id, time_stamp, global_type_id, global_value, player_id, landarea_id });
  await k('hunting_globals').insert([
    g(9101, '2026-11-21T18:04:05Z', 1, 10, 9201, 9301),
    g(9101, '2026-11-21T18:04:06.250Z', 1, 11, 9201, 9302),
    g(9101, '2026-11-21T20:04:07+02:00', 1, 12, 9201, 9303),
    g(9101, '2026-11-21T18:04:08.000001Z', 1, 13, 9201, 9301),
    g(9101, '2026-11-21T18:04:09.123456+05:30', 1, 14, 9201, 101),
    // ties on the time stamp
    g(9102, T0, 1, 500, 9201, 9301),
    g(9102, T0, 1, 900, 9202, 9301),
    g(9102, T0, 1, 500, 9202, 9301),
    g(9102, T0, 2, 500, 9201, 9301),
    g(9103, T0, 1, 500, 9201, 9301),
  ]);
  const weapon = (over: Row): Row => ({
    description: null, item_picture_url: null,
    min_hit_level: '1', max_hit_level: '2', min_dmg_level: '3', max_dmg_level: '4', weight: '5', range: '6',
    impact_radius: '0', attacks_min: '60', decay: '0.5', ammo_burn: 100, tt_value: '10', min_tt_value: '1',
    total_uses: 1000, sib_weapon: false, hit_profession_id: 1, dmg_profession_id: 2, item_id: 9999,
    ...over,
  });
  await k('weapons').insert([
    weapon({
      weapon_id: 9501, weapon_name: 'Qzx Decimal Rifle',
      min_hit_level: '0.1', max_hit_level: '12345678.12345', min_dmg_level: '2.50', max_dmg_level: '0.0000001',
      weight: '0', range: '12345678901234567.5', impact_radius: '-0.5', decay: '0.00001',
      tt_value: '12345678.12345', min_tt_value: '0.10', total_uses: 2147483647, ammo_burn: -2147483648, sib_weapon: true, item_id: -5,
    }),
    weapon({ weapon_id: 9502, weapon_name: 'Qzx Picture Blade', item_picture_url: 'https://img.example.com/qzx/9502.png', hit_profession_id: 3, dmg_profession_id: 4 }),
    weapon({ weapon_id: 9503, weapon_name: 'Qzx Text Gun', description: 'Text & <markup>' }),
    weapon({ weapon_id: 9504, weapon_name: 'Ancient Opalo', description: 'sorts before "Opalo"' }),
  ]);
  await k('weapon_damage').insert([
    { weapon_id: 9502, damage_type_name: 'Stab', damage: '2.50' },
    { weapon_id: 9502, damage_type_name: 'Burn', damage: '0.1' },
    { weapon_id: 9502, damage_type_name: 'Impact', damage: '12345678.12345' },
  ]);
  await k('items').insert([
    { item_id: 9601, item_name: 'Qzx Decimal Item', description: null, item_picture_url: null, tt_value: '0.1', category_id: 1 },
    { item_id: 9602, item_name: 'Qzx Big Item', description: 'only text', item_picture_url: null, tt_value: '12345678.12345', category_id: 2 },
    { item_id: 9603, item_name: 'Qzx Cheap Item', description: null, item_picture_url: 'https://img.example.com/qzx/9603.png', tt_value: '2.50', category_id: 1 },
    { item_id: 9604, item_name: 'Refined Animal Oil', description: null, item_picture_url: null, tt_value: '1.00', category_id: 1 },
    { item_id: 9605, item_name: 'Aged Animal Oil', description: null, item_picture_url: null, tt_value: '1.50', category_id: 1 },
  ]);
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-soap-ops-'));
  svc = await startService({ SVAPI_MAX_GLOBALS: String(MAX_GLOBALS), SVAPI_RATE_LIMIT: '1000000', SVAPI_AUTH_FAIL_LIMIT: '1000000' });
  await insertFixtures();
  await loadDatabase();
  await loadSchemas();
});

// The documents a test queued for schema validation are checked when it ends (test/support/xmllint.ts).
afterEach(checkSchemas);
afterAll(async () => {
  await svc?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------

test('the schema check rejects a response whose fields are out of the XSD order', async () => {
  const resultEl = await result('1.1', 'GetMonster', [['MonsterID', '1']]);
  const response = resultEl.parent!;
  const good = serialize(response);
  validate(PATHS.GetMonster, good);
  expect(checkSchemas).not.toThrow();
  const swapped = good.replace(/(<MonsterName>[^<]*<\/MonsterName>)(<MonsterID>[^<]*<\/MonsterID>)/, '$2$1');
  expect(swapped).not.toBe(good);
  validate(PATHS.GetMonster, swapped);
  expect(checkSchemas).toThrow(/^not valid against the schema served at [^:]*:\n[\s\S]*This element is not expected/);
});

describe.each(VERSIONS)('SOAP %s', (version) => {
  describe('GetWeapons', () => {
    test('SearchWord "opalo": the exact match, then prefixes, then the rest, every field as stored', async () => {
      const expected = searched(db.weapons, 'weapon_name', 'weapon_id', 'opalo');
      // all three kinds, and a name that sorts first alphabetically but is no prefix match
      expect(expected.map((w) => w.weapon_name)).toEqual(['Opalo', 'Opalo Improved', 'Ancient Opalo', 'Sollvane Opalo']);
      expect(shapes(await result(version, 'GetWeapons', [['SearchWord', 'opalo']]))).toEqual(expected.map(weaponShape));
    });

    test('without SearchWord: every weapon, by lower-case name then ID', async () => {
      const expected = searched(db.weapons, 'weapon_name', 'weapon_id', '');
      expect(expected.length).toBe(await svc.db.knex('weapons').count({ n: '*' }).then(([r]) => Number(r.n)));
      expect(shapes(await result(version, 'GetWeapons'))).toEqual(expected.map(weaponShape));
    });

    test('DamageTypes are ordered by DamageTypeName; a weapon without damage rows has an empty <DamageTypes/>', async () => {
      const got = (await result(version, 'GetWeapons', [['SearchWord', 'Qzx']])).children;
      const byName = (n: string) => got.find((w) => child(w, 'WeaponName').text === n)!;
      const picture = child(byName('Qzx Picture Blade'), 'DamageTypes');
      expect(picture.children.map((d) => child(d, 'DamageTypeName').text)).toEqual(['Burn', 'Impact', 'Stab']);
      const bare = child(byName('Qzx Decimal Rifle'), 'DamageTypes');
      expect({ children: bare.children.length, text: bare.text, attributes: Object.keys(bare.attributes) })
        .toEqual({ children: 0, text: '', attributes: [] });
    });

    test('decimals come back exactly as stored, without exponent or float rounding', async () => {
      const [w] = (await result(version, 'GetWeapons', [['SearchWord', 'Qzx Decimal Rifle']])).children;
      const text = (name: string) => child(w, name).text;
      expect({
        MinHitLevel: text('MinHitLevel'), MaxHitLevel: text('MaxHitLevel'), MinDmgLevel: text('MinDmgLevel'),
        MaxDmgLevel: text('MaxDmgLevel'), Weight: text('Weight'), Range: text('Range'), ImpactRadius: text('ImpactRadius'),
        Decay: text('Decay'), TTValue: text('TTValue'), MinTTValue: text('MinTTValue'),
        TotalUses: text('TotalUses'), AmmoBurn: text('AmmoBurn'), ItemID: text('ItemID'), SIBWeapon: text('SIBWeapon'),
      }).toEqual({
        MinHitLevel: '0.1', MaxHitLevel: '12345678.12345', MinDmgLevel: '2.50',
        MaxDmgLevel: '0.0000001', Weight: '0', Range: '12345678901234567.5', ImpactRadius: '-0.5',
        Decay: '0.00001', TTValue: '12345678.12345', MinTTValue: '0.10',
        TotalUses: '2147483647', AmmoBurn: '-2147483648', ItemID: '-5', SIBWeapon: 'true',
      });
      const [p] = (await result(version, 'GetWeapons', [['SearchWord', 'Qzx Picture Blade']])).children;
      expect(child(p, 'DamageTypes').children.map((d) => child(d, 'Damage').text)).toEqual(['0.1', '12345678.12345', '2.50']);
    });
  });

  describe('FindItems', () => {
    test('SearchWord "animal oil": the exact match, then prefixes, then the rest, every field as stored', async () => {
      const expected = searched(db.items, 'item_name', 'item_id', 'animal oil');
      expect(expected.map((i) => i.item_name)).toEqual(['Animal Oil', 'Animal Oil Concentrate', 'animal oil residue', 'Aged Animal Oil', 'Refined Animal Oil']);
      expect(shapes(await result(version, 'FindItems', [['SearchWord', 'animal oil']]))).toEqual(expected.map(itemShape));
    });

    test('without SearchWord: every item, by lower-case name then ID', async () => {
      const expected = searched(db.items, 'item_name', 'item_id', '');
      expect(shapes(await result(version, 'FindItems'))).toEqual(expected.map(itemShape));
    });

    test('TTValue comes back exactly as stored', async () => {
      const got = (await result(version, 'FindItems', [['SearchWord', 'Qzx']])).children;
      expect(got.map((i) => [child(i, 'ItemName').text, child(i, 'TTValue').text])).toEqual([
        ['Qzx Big Item', '12345678.12345'], ['Qzx Cheap Item', '2.50'], ['Qzx Decimal Item', '0.1'],
      ]);
    });
  });

  describe('GetMonsters', () => {
    test('SearchWord "Atrox": exact matches by ID, then prefixes, then the rest', async () => {
      const expected = searched(db.monsters, 'monster_name', 'monster_id', 'Atrox');
      expect(expected.map((m) => `${m.monster_id} ${m.monster_name}`)).toEqual(
        ['5 Atrox', '9120 ATROX', '9121 atrox', '2 Atrox Young', '4 Atroxine', '9122 Alpha Atrox', '3 Old Atrox']);
      const got = shapes(await result(version, 'GetMonsters', [['SearchWord', 'Atrox']]));
      expect(got).toEqual(expected.map((m): Shape => ['Monster', monsterFields(m)]));
    });

    test('without SearchWord: every monster, by lower-case name then ID', async () => {
      const expected = searched(db.monsters, 'monster_name', 'monster_id', '');
      expect(shapes(await result(version, 'GetMonsters'))).toEqual(expected.map((m): Shape => ['Monster', monsterFields(m)]));
    });

    test('SearchWord is case-insensitive and trimmed', async () => {
      const expected = shapes(await result(version, 'GetMonsters', [['SearchWord', 'atrox young']]));
      expect(expected.map((m) => (m[1] as Shape[])[0])).toEqual([['MonsterName', 'Atrox Young']]);
      expect(shapes(await result(version, 'GetMonsters', [['SearchWord', 'ATROX YOUNG']]))).toEqual(expected);
      expect(shapes(await result(version, 'GetMonsters', [['SearchWord', ' \t atrox Young \n ']]))).toEqual(expected);
      // beyond ASCII too
      for (const [word, name] of [['ñandú', 'Ñandú'], ['БОЛОТНИК', 'Болотник'], ['ÜBERGRÖßÉ', 'Übergrößé Tick']]) {
        const got = (await result(version, 'GetMonsters', [['SearchWord', word]])).children.map((m) => child(m, 'MonsterName').text);
        expect(got).toEqual([name]);
      }
    });

    test.each([
      ['100%', ['Esc 100% Wild']],
      ['%', ['Esc 100% Wild']],
      ['a_b', ['Esc a_b']],
      ['_', ['Esc a_b', 'Mire_Hound']],
      ['k\\s', ['Esc back\\slash']],
      ['\\', ['Esc back\\slash']],
    ])('SearchWord %j matches %j literally (no LIKE wildcards)', async (word, names) => {
      const got = (await result(version, 'GetMonsters', [['SearchWord', word]])).children.map((m) => child(m, 'MonsterName').text);
      expect(got).toEqual(names);
      expect(got).toEqual(searched(db.monsters, 'monster_name', 'monster_id', word).map((m) => m.monster_name));
    });

    test('a SearchWord of only whitespace is empty and matches every monster', async () => {
      const all = shapes(await result(version, 'GetMonsters'));
      expect(all.length).toBe(db.monsters.length);
      expect(shapes(await result(version, 'GetMonsters', [['SearchWord', ' \t ']]))).toEqual(all);
      expect(shapes(await result(version, 'GetMonsters', [['SearchWord', '']]))).toEqual(all);
    });

    test('a SearchWord matching nothing gives an empty result', async () => {
      const r = await result(version, 'GetMonsters', [['SearchWord', 'no monster is called this']]);
      expect({ children: r.children.length, nil: isNil(r), text: r.text }).toEqual({ children: 0, nil: false, text: '' });
      expect((await result(version, 'GetWeapons', [['SearchWord', 'no weapon is called this']])).children).toEqual([]);
      expect((await result(version, 'FindItems', [['SearchWord', 'no item is called this']])).children).toEqual([]);
    });

    test('a SearchWord of 100 characters is accepted, 101 is InvalidParameter naming SearchWord', async () => {
      expect((await result(version, 'GetMonsters', [['SearchWord', 'x'.repeat(100)]])).children).toEqual([]);
      await expectCallerFault(version, 'GetMonsters', [['SearchWord', 'x'.repeat(101)]], 'InvalidParameter', 'SearchWord');
      await expectCallerFault(version, 'GetWeapons', [['SearchWord', 'x'.repeat(101)]], 'InvalidParameter', 'SearchWord');
      await expectCallerFault(version, 'FindItems', [['SearchWord', 'x'.repeat(101)]], 'InvalidParameter', 'SearchWord');
      // characters, not UTF-16 code units
      expect((await result(version, 'GetMonsters', [['SearchWord', '\u{1F409}'.repeat(100)]])).children).toEqual([]);
      await expectCallerFault(version, 'GetMonsters', [['SearchWord', '\u{1F409}'.repeat(101)]], 'InvalidParameter', 'SearchWord');
    });
  });

  describe('GetMonster', () => {
    test('every monster by its ID, fields as stored', async () => {
      for (const m of db.monsters) {
        expect(shapes(await result(version, 'GetMonster', [['MonsterID', String(m.monster_id)]]))).toEqual(monsterFields(m));
      }
    });

    test('a Description with neither text nor picture is <Description xsi:nil="true"/>', async () => {
      const d = child(await result(version, 'GetMonster', [['MonsterID', '9103']]), 'Description');
      expect({ nil: isNil(d), children: d.children.length, text: d.text }).toEqual({ nil: true, children: 0, text: '' });
      expect(Object.values(d.attributes).map((a) => [a.uri, a.local, a.value])).toEqual([[XSI_NS, 'nil', 'true']]);
    });

    test('a Description with only a picture or only text omits the other element', async () => {
      const picture = child(await result(version, 'GetMonster', [['MonsterID', '9102']]), 'Description');
      expect(shape(picture)).toEqual(['Description', [['ItemPictureURL', 'https://img.example.com/qzx/9102.png?a=1&b=2']]]);
      const text = child(await result(version, 'GetMonster', [['MonsterID', '9101']]), 'Description');
      expect(shape(text)).toEqual(['Description', [['Description', 'Only <text> & "quotes"']]]);
      const [weapon] = (await result(version, 'GetWeapons', [['SearchWord', 'Qzx Picture Blade']])).children;
      expect(shape(child(weapon, 'Description'))).toEqual(['Description', [['ItemPictureURL', 'https://img.example.com/qzx/9502.png']]]);
      const [item] = (await result(version, 'FindItems', [['SearchWord', 'Qzx Big Item']])).children;
      expect(shape(child(item, 'Description'))).toEqual(['Description', [['Description', 'only text']]]);
    });

    test('an unknown MonsterID is a NotFound fault', async () => {
      await expectCallerFault(version, 'GetMonster', [['MonsterID', '987654']], 'NotFound');
    });
  });

  describe('GetMonsterGlobals', () => {
    test('the newest NumberOfGlobals globals of every monster, in CONTRACT order, every field as stored', async () => {
      for (const m of db.monsters) {
        const expected = newest((g) => g.monster === m.monster_id, 5).map(globalShape);
        const got = shapes(await result(version, 'GetMonsterGlobals', [['MonsterID', String(m.monster_id)], ['NumberOfGlobals', '5']]));
        expect(got).toEqual(expected);
      }
    });

    test('TimeStamp is UTC with Z, fractional seconds only when non-zero', async () => {
      const got = (await result(version, 'GetMonsterGlobals', [['MonsterID', '9101'], ['NumberOfGlobals', '10']])).children;
      expect(got.map((g) => child(g, 'TimeStamp').text)).toEqual([
        '2026-11-21T18:04:08.000001Z',
        '2026-11-21T18:04:07Z', // stored as 20:04:07+02:00
        '2026-11-21T18:04:06.25Z',
        '2026-11-21T18:04:05Z',
        '2026-11-21T12:34:09.123456Z', // stored as 18:04:09.123456+05:30
      ]);
    });

    test('ties on TimeStamp: GlobalValue descending, then PlayerID, then GlobalTypeID', async () => {
      const got = (await result(version, 'GetMonsterGlobals', [['MonsterID', '9102'], ['NumberOfGlobals', '10']])).children;
      expect(got.map((g) => [child(g, 'GlobalValue').text, child(child(g, 'Player'), 'PlayerID').text, child(child(g, 'GlobalType'), 'GlobalTypeID').text]))
        .toEqual([['900', '9202', '1'], ['500', '9201', '1'], ['500', '9201', '2'], ['500', '9202', '1']]);
    });

    test('a land area without planet has <Planet xsi:nil="true"/>; a planet with an empty or no description has <Description xsi:nil="true"/>', async () => {
      const got = (await result(version, 'GetMonsterGlobals', [['MonsterID', '9101'], ['NumberOfGlobals', '10']])).children;
      const planetOf = (areaId: string) => {
        const area = got.map((g) => child(g, 'Landarea')).find((a) => child(a, 'AreaID').text === areaId)!;
        return child(area, 'Planet');
      };
      const none = planetOf('9301');
      expect({ nil: isNil(none), children: none.children.length, text: none.text }).toEqual({ nil: true, children: 0, text: '' });
      expect(shape(planetOf('9302'))).toEqual(['Planet', [['PlanetName', 'Qzx Empty Planet'], ['PlanetID', '9401'], ['Description', null]]]);
      expect(shape(planetOf('9303'))).toEqual(['Planet', [['PlanetName', 'Qzx Null Planet'], ['PlanetID', '9402'], ['Description', null]]]);
    });

    test('NumberOfGlobals above SVAPI_MAX_GLOBALS is clamped to it', async () => {
      const busiest = [...new Set(db.globals.map((g) => g.monster))]
        .map((id) => ({ id, n: db.globals.filter((g) => g.monster === id).length }))
        .sort((a, b) => b.n - a.n)[0];
      expect(busiest.n).toBeGreaterThan(MAX_GLOBALS);
      const expected = newest((g) => g.monster === busiest.id, MAX_GLOBALS).map(globalShape);
      for (const n of [String(MAX_GLOBALS), String(MAX_GLOBALS + 1), '2147483647']) {
        expect(shapes(await result(version, 'GetMonsterGlobals', [['MonsterID', String(busiest.id)], ['NumberOfGlobals', n]]))).toEqual(expected);
      }
    });

    test('NumberOfGlobals 0 or negative is InvalidParameter naming NumberOfGlobals', async () => {
      for (const n of ['0', '-1', '-2147483648']) {
        await expectCallerFault(version, 'GetMonsterGlobals', [['MonsterID', '2'], ['NumberOfGlobals', n]], 'InvalidParameter', 'NumberOfGlobals');
        await expectCallerFault(version, 'GetPlayerGlobals', [['playerID', '9201'], ['NumberOfGlobals', n]], 'InvalidParameter', 'NumberOfGlobals');
      }
    });

    test('an unknown MonsterID gives an empty list', async () => {
      const r = await result(version, 'GetMonsterGlobals', [['MonsterID', '987654'], ['NumberOfGlobals', '10']]);
      expect({ children: r.children.length, nil: isNil(r) }).toEqual({ children: 0, nil: false });
    });
  });

  describe('GetPlayerGlobals', () => {
    test('the newest NumberOfGlobals globals of the busiest player and of a team, every field as stored', async () => {
      const count = (id: number) => db.globals.filter((g) => g.player === id).length;
      const players = [...db.players.values()];
      const busiest = players.sort((a, b) => count(b.player_id) - count(a.player_id) || a.player_id - b.player_id)[0];
      const team = players.filter((p) => p.is_team && count(p.player_id) > 3)[0];
      expect(team).toBeDefined();
      for (const p of [busiest, team]) {
        const expected = newest((g) => g.player === p.player_id, 25).map(globalShape);
        expect(expected.length).toBeGreaterThan(3);
        const got = shapes(await result(version, 'GetPlayerGlobals', [['playerID', String(p.player_id)], ['NumberOfGlobals', '25']]));
        expect(got).toEqual(expected);
      }
    });

    test('ties on TimeStamp and GlobalValue: MonsterID, then GlobalTypeID', async () => {
      const got = (await result(version, 'GetPlayerGlobals', [['playerID', '9201'], ['NumberOfGlobals', '3']])).children;
      expect(got.map((g) => [child(child(g, 'Monster'), 'MonsterID').text, child(child(g, 'GlobalType'), 'GlobalTypeID').text]))
        .toEqual([['9102', '1'], ['9102', '2'], ['9103', '1']]);
      expect(got.map(shape)).toEqual(newest((g) => g.player === 9201, 3).map(globalShape));
    });

    test('an unknown playerID gives an empty list', async () => {
      expect((await result(version, 'GetPlayerGlobals', [['playerID', '987654'], ['NumberOfGlobals', '10']])).children).toEqual([]);
    });
  });

  describe('GetLandareaGlobals', () => {
    test('the newest SVAPI_LANDAREA_GLOBALS (100) globals of every land area, every field as stored', async () => {
      let clamped = 0;
      for (const id of db.areas.keys()) {
        const expected = newest((g) => g.area === id, 100).map(globalShape);
        if (db.globals.filter((g) => g.area === id).length > 100) clamped++;
        expect(shapes(await result(version, 'GetLandareaGlobals', [['LandareaID', String(id)]]))).toEqual(expected);
      }
      expect(clamped).toBeGreaterThan(0);
    });

    test('an unknown LandareaID gives an empty list', async () => {
      expect((await result(version, 'GetLandareaGlobals', [['LandareaID', '987654']])).children).toEqual([]);
    });
  });

  describe('GetAuctionCategories', () => {
    test('every auction category, by CategoryID', async () => {
      const expected = [...db.auction].sort((a, b) => a.category_id - b.category_id)
        .map((c): Shape => ['AuctionCategory', [['CategoryName', c.category_name], ['CategoryID', int(c.category_id)]]]);
      expect(expected.length).toBeGreaterThan(1);
      expect(shapes(await result(version, 'GetAuctionCategories'))).toEqual(expected);
    });
  });
});

describe('all four bindings', () => {
  const calls: [Op, Params][] = [
    ['GetWeapons', [['SearchWord', 'opalo']]],
    ['FindItems', [['SearchWord', 'qzx']]],
    ['GetMonsters', [['SearchWord', 'atrox']]],
    ['GetMonster', [['MonsterID', '9102']]],
    ['GetMonsterGlobals', [['MonsterID', '9101'], ['NumberOfGlobals', '10']]],
    ['GetPlayerGlobals', [['playerID', '9201'], ['NumberOfGlobals', '10']]],
    ['GetLandareaGlobals', [['LandareaID', '9301']]],
    ['GetAuctionCategories', []],
  ];

  test.each(calls)('%s gives the same records over SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST', async (op, params) => {
    const soap11 = shapes(await result('1.1', op, params));
    const soap12 = shapes(await result('1.2', op, params));
    const form = new URLSearchParams([...credentials(), ...params]).toString();
    const get = await fetch(`${svc.url}${PATHS[op]}/${op}?${form}`);
    const post = await fetch(`${svc.url}${PATHS[op]}/${op}`, {
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form,
    });
    expect([get.status, post.status]).toEqual([200, 200]);
    const httpShapes = (xml: string) => parseXml(xml).root.children.map(shape);
    expect(soap11.length).toBeGreaterThan(0);
    expect(soap12).toEqual(soap11);
    expect(httpShapes(await get.text())).toEqual(soap11);
    expect(httpShapes(await post.text())).toEqual(soap11);
  });
});
