import type { GenerateContext } from './generate-context';
import { descAndPic } from './generate-context';
import { Rng } from './rng';
import { FIRST_MONSTER_ID } from './sizes';
import {
  CREATURES, FIRST_NAMES, LAST_NAMES, MATURITIES, MONSTER_RARITY, MONSTER_TRAITS, NICKNAMES, REGIONS, TEAM_ADJECTIVES, TEAM_NOUNS,
} from './words';

/**
 * The i-th monster name: creature, then maturity, then region, counted like digits, so names
 * are unique for the first 50 x 12 x 12 monsters (then a round number is added). Monster 1 is
 * the plain first creature.
 */
export function monsterName(i: number): string {
  const c = CREATURES[i % CREATURES.length];
  const m = MATURITIES[Math.floor(i / CREATURES.length) % MATURITIES.length];
  const per = CREATURES.length * MATURITIES.length;
  const r = REGIONS[Math.floor(i / per) % REGIONS.length];
  const round = Math.floor(i / (per * REGIONS.length));
  return [r, c, m].filter(Boolean).join(' ') + (round ? ` ${round + 1}` : '');
}

export async function writeMonsters(ctx: GenerateContext): Promise<void> {
  const { sizes } = ctx;
  const rng = new Rng(ctx.seed, 'monsters');
  const out = ctx.open('monsters.csv', ['MonsterID', 'MonsterName', 'Description', 'ItemPictureURL'], sizes.monsters);
  for (let i = 0; i < sizes.monsters; i++) {
    const id = FIRST_MONSTER_ID + i;
    const desc = `A ${rng.pick(MONSTER_TRAITS)} creature, ${rng.pick(MONSTER_RARITY)} in the wilds.`;
    const wait = out.row([id, monsterName(i), ...descAndPic(i, desc, 'monsters', id)]);
    if (wait) await wait;
  }
  await out.close();
}

/** Players' IDs and which are teams, for the globals. */
export interface Players {
  ids: Int32Array;
  team: Uint8Array;
}

/**
 * players.csv: about 5% teams, the rest "First "Nick" Last". IDs are 1,000,000 + 7i + (0..6):
 * unique, increasing, not consecutive.
 */
export async function writePlayers(ctx: GenerateContext): Promise<Players> {
  const { sizes } = ctx;
  const rng = new Rng(ctx.seed, 'players');
  const ids = new Int32Array(sizes.players);
  const team = new Uint8Array(sizes.players);
  const out = ctx.open('players.csv', ['PlayerID', 'PlayerName', 'IsTeam'], sizes.players);
  for (let i = 0; i < sizes.players; i++) {
    ids[i] = 1_000_000 + 7 * i + rng.int(0, 6);
    team[i] = rng.chance(0.05) ? 1 : 0;
    const name = team[i]
      ? `${rng.pick(TEAM_ADJECTIVES)} ${rng.pick(TEAM_NOUNS)}`
      : `${rng.pick(FIRST_NAMES)} "${rng.pick(NICKNAMES)}" ${rng.pick(LAST_NAMES)}`;
    const wait = out.row([ids[i], name, team[i] ? 'true' : 'false']);
    if (wait) await wait;
  }
  await out.close();
  return { ids, team };
}
