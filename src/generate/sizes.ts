/** How many records of each kind a scale gives (scale 1 = 1/100 of the `--scale 100` benchmark set). */
export interface Sizes {
  professions: number;
  itemCategories: number;
  auctionCategories: number;
  planets: number;
  landareas: number;
  globalTypes: number;
  weapons: number;
  items: number;
  monsters: number;
  players: number;
  globals: number;
  /** Weapons whose name holds SEARCH_WORD. */
  searchWordWeapons: number;
}

/**
 * The rare weapon-name word: exactly `min(10, weapons)` weapon names contain it (as a
 * case-insensitive substring, which is how SearchWord matches), at every scale. No other
 * word list holds it. The benchmark's "GetWeapons with about ten matches" case searches it.
 */
export const SEARCH_WORD = 'Zephyr';
export const SEARCH_WORD_MATCHES = 10;

/** Fixed anchors that exist at every scale (ID ranges start here). */
export const FIRST_WEAPON_ID = 101;
export const FIRST_ITEM_ID = 2001;
export const FIRST_MONSTER_ID = 1;
export const FIRST_AREA_ID = 101;

export function sizesFor(scale: number): Sizes {
  if (!Number.isFinite(scale) || scale <= 0) throw new RangeError('scale must be a positive number');
  const n = (perScale: number) => Math.max(1, Math.round(perScale * scale));
  const weapons = n(200);
  return {
    professions: 14,
    itemCategories: 20,
    auctionCategories: 40,
    planets: 8,
    landareas: 20 + Math.max(1, Math.round(scale)),
    globalTypes: 4,
    weapons,
    items: n(1_000),
    monsters: n(50),
    players: n(2_000),
    globals: n(50_000),
    searchWordWeapons: Math.min(SEARCH_WORD_MATCHES, weapons),
  };
}
