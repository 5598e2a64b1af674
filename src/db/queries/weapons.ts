import type { Knex } from 'knex';
import type { DamageType, Weapon } from '../../generated/records';
import { nameSearch, searchRows } from './search';
import { readRows, type Statement } from './statements';
import { description } from './values';

export const WEAPON_SEARCH = nameSearch('weapons_by_name', `SELECT w.weapon_id, w.weapon_name, w.description, w.item_picture_url,
  w.min_hit_level, w.max_hit_level, w.min_dmg_level, w.max_dmg_level, w.weight, w.range, w.impact_radius, w.attacks_min,
  w.decay, w.ammo_burn, w.tt_value, w.min_tt_value, w.total_uses, w.sib_weapon,
  w.hit_profession_id, hp.profession_name, w.dmg_profession_id, dp.profession_name, w.item_id
FROM weapons AS w
  JOIN professions AS hp ON hp.profession_id = w.hit_profession_id
  JOIN professions AS dp ON dp.profession_id = w.dmg_profession_id`, 'w.weapon_name', 'w.weapon_id');

/** The damage types of the weapons in $1; = ANY(array): one statement text whatever their number, so it can be named. */
const DAMAGE: Statement = {
  name: 'weapon_damage',
  text: 'SELECT weapon_id, damage, damage_type_name FROM weapon_damage WHERE weapon_id = ANY($1::int[]) ORDER BY weapon_id, damage_type_name COLLATE "C"',
};

export async function searchWeapons(knex: Knex, word: string, limit: number): Promise<Weapon[]> {
  const rows = await searchRows(knex, WEAPON_SEARCH, word, limit);
  const damageOf = new Map<number, DamageType[]>();
  if (rows.length) {
    for (const [weaponId, damage, name] of await readRows(knex, DAMAGE, [rows.map((r) => r[0])])) {
      const list = damageOf.get(weaponId as number);
      const type: DamageType = { Damage: damage as string, DamageTypeName: name as string };
      if (list) list.push(type);
      else damageOf.set(weaponId as number, [type]);
    }
  }
  return rows.map((r) => toWeapon(r, damageOf.get(r[0] as number) ?? []));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a row's columns, in the select list's order
const toWeapon = (r: any[], damageTypes: DamageType[]): Weapon => ({
  WeaponID: r[0],
  WeaponName: r[1],
  Description: description(r[2], r[3]),
  DamageTypes: damageTypes,
  MinHitLevel: r[4],
  MaxHitLevel: r[5],
  MinDmgLevel: r[6],
  MaxDmgLevel: r[7],
  Weight: r[8],
  Range: r[9],
  ImpactRadius: r[10],
  AttacksMin: r[11],
  Decay: r[12],
  AmmoBurn: r[13],
  TTValue: r[14],
  MinTTValue: r[15],
  TotalUses: r[16],
  SIBWeapon: r[17],
  HitProfession: { ProfessionID: r[18], ProfessionName: r[19] },
  DmgProfession: { ProfessionID: r[20], ProfessionName: r[21] },
  ItemID: r[22],
});
