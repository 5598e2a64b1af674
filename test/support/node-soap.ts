// node-soap clients of the four endpoints, and for each operation the arguments a test calls it
// with and the checks of what node-soap parsed against the database rows.

import type { Knex } from 'knex';
import type * as soap from 'soap';
import { comparableGlobalRow } from './global-rows';

export const ENVELOPE_NS = { Soap: 'http://schemas.xmlsoap.org/soap/envelope/', Soap12: 'http://www.w3.org/2003/05/soap-envelope' } as const;
export const CONTENT_TYPE = { Soap: 'text/xml; charset=utf-8', Soap12: 'application/soap+xml; charset=utf-8' } as const;
export type Port = keyof typeof ENVELOPE_NS;
export const PORTS: Port[] = ['Soap', 'Soap12'];

export const ENDPOINTS = [
  { service: 'Weapons', path: '/api/weapons.asmx', wsdl: 'weapons', operations: ['GetWeapons'] },
  { service: 'Item', path: '/api/item.asmx', wsdl: 'item', operations: ['FindItems'] },
  { service: 'Hunting', path: '/API/hunting.asmx', wsdl: 'hunting', operations: ['GetMonsters', 'GetMonster', 'GetMonsterGlobals', 'GetPlayerGlobals', 'GetLandareaGlobals'] },
  { service: 'Auction', path: '/api/auction.asmx', wsdl: 'auction', operations: ['GetAuctionCategories'] },
] as const;

/** Every (endpoint, port, operation): `[label, operation, service, port]`. */
export const MATRIX = ENDPOINTS.flatMap((e) => PORTS.flatMap((port) => e.operations.map((op) => [`${e.service}${port}`, op, e.service, port] as const)));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- node-soap results are untyped objects
export type Any = any;

/**
 * Options for a client of one SOAP version. forceSoap12Headers is what makes node-soap send SOAP
 * 1.2 (the 1.2 envelope namespace, Content-Type application/soap+xml with action=); selecting the
 * Soap12 port alone does not. It is stored on the parsed WSDL, which node-soap caches per URL (or
 * text): without disableCache the last client created decides the version of every client of it.
 */
export const clientOptions = (port: Port): soap.IOptions => ({ forceSoap12Headers: port === 'Soap12', disableCache: true });

export interface Call {
  result: Any;
  requestHeaders: Record<string, string>;
  requestXml: string;
  responseContentType: string;
}

/** Calls `operation` through `<Service><port>` of `client`, as generated code would; a fault rejects with node-soap's error as `cause`. */
export function callOperation(client: soap.Client, service: string, port: Port, operation: string, args: Record<string, unknown>): Promise<Call> {
  const method = (client as Any)[service][`${service}${port}`][operation] as (a: unknown, cb: (err: Any, result: Any) => void) => void;
  if (typeof method !== 'function') throw new Error(`the client has no ${service}${port}.${operation}`);
  return new Promise((resolve, reject) => {
    method(args, (err, result) => {
      if (err) {
        reject(Object.assign(new Error(`${service}${port}.${operation}: ${err.message}\n${client.lastResponse ?? ''}`), { cause: err }));
        return;
      }
      resolve({
        result,
        requestHeaders: { ...(client.lastRequestHeaders as Record<string, string>) },
        requestXml: client.lastRequest!,
        responseContentType: String(client.lastResponseHeaders?.['content-type']),
      });
    });
  });
}

/** node-soap gives one element of a maxOccurs="unbounded" sequence as an array; none as a null result. */
export const list = (result: Any, record: string): Any[] => {
  if (result === null || result === undefined) return [];
  const items = result[record];
  expect(Array.isArray(items)).toBe(true);
  return items;
};
const sortedIds = (records: Any[], id: string) => records.map((r) => r[id]).sort((a: number, b: number) => a - b);
const allIds = (m: Map<number, unknown>) => [...m.keys()].sort((a, b) => a - b);

function expectGlobals(globals: Any[], rows: Any[]) {
  expect(globals.map((g) => ({
    monster_id: g.Monster.MonsterID,
    time: g.TimeStamp instanceof Date ? g.TimeStamp.getTime() : `not a Date: ${g.TimeStamp}`,
    global_type_id: g.GlobalType.GlobalTypeID,
    global_value: g.GlobalValue,
    player_id: g.Player.PlayerID,
    landarea_id: g.Landarea.AreaID,
  }))).toEqual(rows.map(comparableGlobalRow));
  for (const g of globals) {
    expect(typeof g.Monster.MonsterName).toBe('string');
    expect(typeof g.GlobalType.GlobalTypeName).toBe('string');
    expect(typeof g.Player.PlayerName).toBe('string');
    expect(typeof g.Player.IsTeam).toBe('boolean');
    expect(typeof g.Landarea.AreaName).toBe('string');
    if (g.Landarea.Planet) expect(typeof g.Landarea.Planet.PlanetID).toBe('number');
  }
}

export interface OperationCase {
  args: Record<string, unknown>;
  check: (result: Any) => Promise<void> | void;
}

/** The database rows the checks compare with, read independently of the service's queries. */
export interface Rows {
  weapons: Map<number, Any>;
  damage: Map<number, { damage_type_name: string; damage: string }[]>;
  items: Map<number, Any>;
  monsters: Map<number, Any>;
  categories: Any[];
  newest: (column: string, value: number, limit: number) => Promise<Any[]>;
}

export async function readRows(k: Knex): Promise<Rows> {
  const byId = (rows: Any[], id: string) => new Map<number, Any>(rows.map((r) => [r[id], r]));
  const damage = new Map<number, { damage_type_name: string; damage: string }[]>();
  for (const d of await k('weapon_damage').select('weapon_id', 'damage_type_name', k.raw('damage::text as damage'))) {
    damage.set(d.weapon_id, [...(damage.get(d.weapon_id) ?? []), d]);
  }
  return {
    weapons: byId(await k('weapons').select('*', k.raw('tt_value::text as tt_text, decay::text as decay_text')), 'weapon_id'),
    damage,
    items: byId(await k('items').select('*', k.raw('tt_value::text as tt_text')), 'item_id'),
    monsters: byId(await k('monsters').select('*'), 'monster_id'),
    categories: await k('auction_categories').orderBy('category_id').select('*'),
    newest: (column, value, limit) =>
      k('hunting_globals')
        .where(column, value)
        .orderBy([{ column: 'time_stamp', order: 'desc' }, { column: 'global_value', order: 'desc' }, 'player_id', 'monster_id', 'global_type_id'])
        .limit(limit),
  };
}

/** Each operation: its arguments (after the credentials) and the checks of what node-soap parsed. */
export function operationCases(db: Rows): Record<string, OperationCase> {
  return {
    GetWeapons: {
      args: { SearchWord: '' },
      check: (r) => {
        const weapons = list(r.GetWeaponsResult, 'Weapon');
        expect(sortedIds(weapons, 'WeaponID')).toEqual(allIds(db.weapons));
        for (const w of weapons) {
          const row = db.weapons.get(w.WeaponID);
          expect(w.WeaponName).toBe(row.weapon_name);
          // node-soap parses xsd:decimal into a JS number, xsd:boolean into a boolean
          expect(w.TTValue).toBe(Number(row.tt_text));
          expect(w.Decay).toBe(Number(row.decay_text));
          expect(typeof w.SIBWeapon).toBe('boolean');
          expect(w.SIBWeapon).toBe(row.sib_weapon);
          expect(w.AmmoBurn).toBe(row.ammo_burn);
          expect(w.ItemID).toBe(row.item_id);
          expect(w.HitProfession.ProfessionID).toBe(row.hit_profession_id);
          expect(typeof w.HitProfession.ProfessionName).toBe('string');
          expect(w.DmgProfession.ProfessionID).toBe(row.dmg_profession_id);
          const damage = (db.damage.get(w.WeaponID) ?? []).map((d) => ({ DamageTypeName: d.damage_type_name, Damage: Number(d.damage) }));
          const parsed = w.DamageTypes?.DamageType ?? [];
          expect([...parsed].sort((a: Any, b: Any) => (a.DamageTypeName < b.DamageTypeName ? -1 : 1)))
            .toEqual(damage.sort((a, b) => (a.DamageTypeName < b.DamageTypeName ? -1 : 1)));
        }
      },
    },
    FindItems: {
      args: { SearchWord: '' },
      check: (r) => {
        const items = list(r.FindItemsResult, 'Item');
        expect(sortedIds(items, 'ItemID')).toEqual(allIds(db.items));
        for (const i of items) {
          const row = db.items.get(i.ItemID);
          expect(i.ItemName).toBe(row.item_name);
          expect(i.TTValue).toBe(Number(row.tt_text));
          expect(i.Category.CategoryID).toBe(row.category_id);
          expect(typeof i.Category.CategoryName).toBe('string');
          if (row.description !== null) expect(i.Description.Description).toBe(row.description);
          if (row.item_picture_url !== null) expect(i.Description.ItemPictureURL).toBe(row.item_picture_url);
          if (row.description === null && row.item_picture_url === null) expect(i.Description ?? null).toBeNull();
        }
      },
    },
    GetMonsters: {
      args: { SearchWord: '' },
      check: (r) => {
        const monsters = list(r.GetMonstersResult, 'Monster');
        expect(sortedIds(monsters, 'MonsterID')).toEqual(allIds(db.monsters));
        for (const m of monsters) expect(m.MonsterName).toBe(db.monsters.get(m.MonsterID).monster_name);
      },
    },
    GetMonster: {
      args: { MonsterID: 1 },
      check: (r) => {
        const m = db.monsters.get(1);
        expect(r.GetMonsterResult).toEqual({
          MonsterName: m.monster_name,
          MonsterID: 1,
          Description: { Description: m.description, ItemPictureURL: m.item_picture_url },
        });
      },
    },
    GetMonsterGlobals: {
      args: { MonsterID: 5, NumberOfGlobals: 10 },
      check: async (r) => {
        const globals = list(r.GetMonsterGlobalsResult, 'HuntingGlobal');
        expect(globals).toHaveLength(10);
        expectGlobals(globals, await db.newest('monster_id', 5, 10));
      },
    },
    GetPlayerGlobals: {
      args: { playerID: 777001, NumberOfGlobals: 3 },
      check: async (r) => {
        const globals = list(r.GetPlayerGlobalsResult, 'HuntingGlobal');
        expect(globals).toHaveLength(3);
        expectGlobals(globals, await db.newest('player_id', 777001, 3));
      },
    },
    GetLandareaGlobals: {
      args: { LandareaID: 107 },
      check: async (r) => {
        const globals = list(r.GetLandareaGlobalsResult, 'HuntingGlobal');
        const rows = await db.newest('landarea_id', 107, 100);
        expect(rows).toHaveLength(100);
        expect(globals).toHaveLength(100);
        expectGlobals(globals, rows);
      },
    },
    GetAuctionCategories: {
      args: {},
      check: (r) => {
        expect(list(r.GetAuctionCategoriesResult, 'AuctionCategory')).toEqual(
          db.categories.map((c) => ({ CategoryName: c.category_name, CategoryID: c.category_id })),
        );
      },
    },
  };
}
