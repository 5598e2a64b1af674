import type { Cell } from './csv';
import type { GenerateContext } from './generate-context';
import { FIRST_AREA_ID } from './sizes';
import { Rng } from './rng';
import {
  ADJECTIVES, AREAS, AUCTION_CATEGORIES, GLOBAL_TYPES, ITEM_CATEGORIES, OTHER_PROFESSIONS, PLANETS, TERRAIN, WEAPON_CLASSES,
} from './words';

/** Planet of each of the 20 named areas (null: an area without a planet). */
const AREA_PLANETS = [1, 1, 1, 1, 2, 2, 1, 2, 3, 3, 3, 4, 4, 4, 5, 6, null, null, 7, 8];

async function writeAll(ctx: GenerateContext, file: string, header: string[], rows: Cell[][]): Promise<void> {
  const w = ctx.open(file, header, rows.length);
  for (const r of rows) {
    const wait = w.row(r);
    if (wait) await wait;
  }
  await w.close();
}

/** The small lookup tables: professions, categories, planets, land areas, global types. */
export async function writeReferenceTables(ctx: GenerateContext): Promise<void> {
  const { sizes } = ctx;
  const professions: Cell[][] = WEAPON_CLASSES.flatMap((c, k) => [[2 * k + 1, `${c.name} (Hit)`], [2 * k + 2, `${c.name} (Dmg)`]]);
  OTHER_PROFESSIONS.forEach((name) => professions.push([professions.length + 1, name]));
  await writeAll(ctx, 'professions.csv', ['ProfessionID', 'ProfessionName'], professions.slice(0, sizes.professions));

  await writeAll(ctx, 'item_categories.csv', ['CategoryID', 'CategoryName'],
    ITEM_CATEGORIES.slice(0, sizes.itemCategories).map(([name], k) => [k + 1, name]));
  await writeAll(ctx, 'auction_categories.csv', ['CategoryID', 'CategoryName'],
    AUCTION_CATEGORIES.slice(0, sizes.auctionCategories).map((name, k) => [k + 1, name]));
  await writeAll(ctx, 'planets.csv', ['PlanetID', 'PlanetName', 'Description'],
    PLANETS.slice(0, sizes.planets).map(([name, description], k) => [k + 1, name, description]));

  const rng = new Rng(ctx.seed, 'landareas');
  const areas: Cell[][] = [];
  for (let i = 0; i < sizes.landareas; i++) {
    let name: string;
    let planet: number | null;
    if (i < AREAS.length) {
      name = AREAS[i];
      planet = AREA_PLANETS[i];
    } else {
      const j = i - AREAS.length;
      const round = Math.floor(j / (ADJECTIVES.length * TERRAIN.length));
      name = `${ADJECTIVES[j % ADJECTIVES.length]} ${TERRAIN[Math.floor(j / ADJECTIVES.length) % TERRAIN.length]}`
        + (round ? ` ${round + 1}` : '');
      planet = rng.chance(0.1) ? null : rng.int(1, sizes.planets);
    }
    areas.push([FIRST_AREA_ID + i, name, planet]);
  }
  await writeAll(ctx, 'landareas.csv', ['AreaID', 'AreaName', 'PlanetID'], areas);

  await writeAll(ctx, 'global_types.csv', ['GlobalTypeID', 'GlobalTypeName'],
    GLOBAL_TYPES.slice(0, sizes.globalTypes).map((name, k) => [k + 1, name]));
}
