import type { Knex } from 'knex';
import type { Weapon } from '../../generated/records';
import { applyNameSearch } from './search';
import { named } from './statements';
import { description } from './values';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a joined database row
type Row = Record<string, any>;

export async function searchWeapons(knex: Knex, word: string, limit: number): Promise<Weapon[]> {
  const query = knex('weapons as w')
    .join('professions as hp', 'hp.profession_id', 'w.hit_profession_id')
    .join('professions as dp', 'dp.profession_id', 'w.dmg_profession_id')
    .select('w.*', 'hp.profession_name as hit_profession_name', 'dp.profession_name as dmg_profession_name');
  const rows = await applyNameSearch(query, 'w.weapon_name', 'w.weapon_id', word, limit, named(knex, 'weapons_by_name'));
  const damage = rows.length
    ? await knex('weapon_damage')
      // = ANY(array): one statement text whatever the number of weapons, so it can be named.
      .whereRaw('weapon_id = ANY(?::int[])', [rows.map((r: Row) => r.weapon_id)])
      .orderBy('weapon_id')
      .orderByRaw('damage_type_name COLLATE "C"')
      .options(named(knex, 'weapon_damage'))
    : [];
  const damageOf = new Map<number, { Damage: string; DamageTypeName: string }[]>();
  for (const d of damage) {
    const list = damageOf.get(d.weapon_id) ?? [];
    list.push({ Damage: d.damage, DamageTypeName: d.damage_type_name });
    damageOf.set(d.weapon_id, list);
  }
  return rows.map((r: Row) => ({
    WeaponID: r.weapon_id,
    WeaponName: r.weapon_name,
    Description: description(r.description, r.item_picture_url),
    DamageTypes: damageOf.get(r.weapon_id) ?? [],
    MinHitLevel: r.min_hit_level,
    MaxHitLevel: r.max_hit_level,
    MinDmgLevel: r.min_dmg_level,
    MaxDmgLevel: r.max_dmg_level,
    Weight: r.weight,
    Range: r.range,
    ImpactRadius: r.impact_radius,
    AttacksMin: r.attacks_min,
    Decay: r.decay,
    AmmoBurn: r.ammo_burn,
    TTValue: r.tt_value,
    MinTTValue: r.min_tt_value,
    TotalUses: r.total_uses,
    SIBWeapon: r.sib_weapon,
    HitProfession: { ProfessionID: r.hit_profession_id, ProfessionName: r.hit_profession_name },
    DmgProfession: { ProfessionID: r.dmg_profession_id, ProfessionName: r.dmg_profession_name },
    ItemID: r.item_id,
  }));
}
