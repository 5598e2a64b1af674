import type { GenerateContext } from './generate-context';
import { descAndPic } from './generate-context';
import { Rng } from './rng';
import { FIRST_ITEM_ID, FIRST_WEAPON_ID, SEARCH_WORD } from './sizes';
import { ADJECTIVES, BRANDS, FLAVOUR, ITEM_CATEGORIES, ITEM_GRADES, WEAPON_CLASSES, WEAPON_VARIANTS } from './words';

const WEAPON_HEADER = ['WeaponID', 'WeaponName', 'Description', 'ItemPictureURL', 'MinHitLevel', 'MaxHitLevel',
  'MinDmgLevel', 'MaxDmgLevel', 'Weight', 'Range', 'ImpactRadius', 'AttacksMin', 'Decay', 'AmmoBurn', 'TTValue',
  'MinTTValue', 'TotalUses', 'SIBWeapon', 'HitProfessionID', 'DmgProfessionID', 'ItemID'];
const SEARCH_WORD_LOWER = SEARCH_WORD.toLowerCase();
const d1 = (x: number): string => x.toFixed(1);

/**
 * The weapons that carry SEARCH_WORD: `count` indexes spread evenly over `weapons`
 * (floor((j + 0.5) * weapons / count), all distinct because weapons >= count).
 */
function searchWordIndexes(weapons: number, count: number): Set<number> {
  const set = new Set<number>();
  for (let j = 0; j < count; j++) set.add(Math.floor(((j + 0.5) * weapons) / count));
  return set;
}

function weaponName(rng: Rng, k: number, withSearchWord: boolean): string {
  const cls = WEAPON_CLASSES[k];
  const noun = rng.pick(cls.nouns);
  const variant = rng.pick(WEAPON_VARIANTS);
  const model = `${rng.pick(cls.codes)}-${rng.int(2, 999)}`;
  if (withSearchWord) {
    return rng.chance(0.5) ? `${SEARCH_WORD} ${noun}${variant}` : `${rng.pick(BRANDS)} ${SEARCH_WORD} ${model}${variant}`;
  }
  let name: string;
  switch (rng.int(0, 2)) {
    case 0: name = `${rng.pick(BRANDS)} ${model} ${noun}${variant}`; break;
    case 1: name = `${rng.pick(ADJECTIVES)} ${noun}${variant}`; break;
    default: name = `${rng.pick(BRANDS)} ${rng.pick(ADJECTIVES)} ${noun}${variant}`;
  }
  if (name.toLowerCase().includes(SEARCH_WORD_LOWER)) throw new Error(`word lists must not hold ${SEARCH_WORD}: ${name}`);
  return name;
}

/** weapons.csv and weapon_damage.csv (0 to 4 damage rows per weapon). */
export async function writeWeapons(ctx: GenerateContext): Promise<void> {
  const { sizes } = ctx;
  const rng = new Rng(ctx.seed, 'weapons');
  const chosen = searchWordIndexes(sizes.weapons, sizes.searchWordWeapons);
  const weapons = ctx.open('weapons.csv', WEAPON_HEADER, sizes.weapons);
  const damage = ctx.open('weapon_damage.csv', ['WeaponID', 'DamageTypeName', 'Damage'], Math.round(sizes.weapons * 2.2));
  for (let i = 0; i < sizes.weapons; i++) {
    const id = FIRST_WEAPON_ID + i;
    const k = rng.int(0, WEAPON_CLASSES.length - 1);
    const name = weaponName(rng, k, chosen.has(i));
    const minHit = rng.int(0, 300) / 10;
    const minDmg = rng.int(0, 400) / 10;
    const tt = (5 + 495 * rng.next()).toFixed(2);
    const minTT = (Number(tt) * 0.1 * rng.next()).toFixed(2);
    const decay = (0.01 + 2 * rng.next()).toFixed(3);
    const wait = weapons.row([
      id, name, ...descAndPic(i, rng.pick(FLAVOUR)(name), 'weapons', id),
      d1(minHit), d1(minHit + rng.int(50, 400) / 10), d1(minDmg), d1(minDmg + rng.int(50, 500) / 10),
      k === 4 ? '0.1' : d1(0.5 + 6 * rng.next()), // weight: mindforce chips weigh exactly 0.1
      k === 3 ? d1(1.5 + 2 * rng.next()) : d1(20 + 90 * rng.next()), // range: melee is short
      k === 5 ? (2 + rng.int(0, 20) / 4).toFixed(2) : '0', // impact radius: only launchers
      d1(12 + 60 * rng.next()), decay,
      k === 3 || (k === 4 && i % 2 === 0) ? 0 : rng.int(50, 2500), // ammo burn
      tt, minTT, Math.floor(((Number(tt) - Number(minTT)) * 100) / Number(decay)),
      rng.chance(0.6) ? 'true' : 'false', 2 * k + 1, 2 * k + 2,
      // ItemID: sometimes a real item, sometimes not (it is not checked against items)
      i % 3 === 0 ? FIRST_ITEM_ID + rng.int(0, sizes.items - 1) : 900000 + id,
    ]);
    if (wait) await wait;
    // every 9th weapon (from index 4) has no damage rows; the rest have 1 to 4 damage types
    const types = WEAPON_CLASSES[k].damage;
    const n = i % 9 === 4 ? 0 : rng.chance(0.3) ? 1 : rng.int(2, types.length);
    for (const t of rng.shuffle([...types]).slice(0, n)) {
      const w = damage.row([id, t, d1(rng.int(10, 600) / 10)]);
      if (w) await w;
    }
  }
  await weapons.close();
  await damage.close();
}

/** items.csv: names from adjectives, the category's nouns and grades; values skewed low. */
export async function writeItems(ctx: GenerateContext): Promise<void> {
  const { sizes } = ctx;
  const rng = new Rng(ctx.seed, 'items');
  const items = ctx.open('items.csv', ['ItemID', 'ItemName', 'Description', 'ItemPictureURL', 'TTValue', 'CategoryID'], sizes.items);
  for (let i = 0; i < sizes.items; i++) {
    const id = FIRST_ITEM_ID + i;
    const cat = rng.int(0, sizes.itemCategories - 1);
    const name = `${rng.pick(ADJECTIVES)} ${rng.pick(ITEM_CATEGORIES[cat][1])}${rng.pick(ITEM_GRADES)}`;
    const value = cat === 2 || cat === 3
      ? (0.0001 + rng.low()).toFixed(5) // ores and enmatters are worth fractions of a cent
      : (0.01 + 4999.99 * rng.low()).toFixed(2);
    const wait = items.row([id, name, ...descAndPic(i, rng.pick(FLAVOUR)(name), 'items', id), value, cat + 1]);
    if (wait) await wait;
  }
  await items.close();
}
