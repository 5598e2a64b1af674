import type { Players } from './actors';
import type { GenerateContext } from './generate-context';
import { Rng, WeightedPicker } from './rng';
import { FIRST_AREA_ID, FIRST_MONSTER_ID } from './sizes';

/** Globals span the 90 days before this instant (2026-11-22T00:00:00Z). */
const GLOBALS_END_MS = Date.UTC(2026, 10, 22);
const GLOBALS_SPAN_MS = 90 * 86_400_000;

/** How a timestamp is written: whole seconds with Z, with milliseconds, or with an offset. */
const enum Style { Z, Fraction, PlusTwo, MinusFive }

const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const DAY_MS = 86_400_000;
let cachedDay = NaN;
let cachedPrefix = '';

/** `YYYY-MM-DDTHH:MM:SS` of an instant (UTC), without a Date per call: rows come in time order. */
function isoSeconds(instant: number): string {
  const day = Math.floor(instant / DAY_MS);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
  }
  const s = Math.floor((instant - day * DAY_MS) / 1000);
  return `${cachedPrefix}${TWO[Math.floor(s / 3600)]}:${TWO[Math.floor(s / 60) % 60]}:${TWO[s % 60]}`;
}

function stamp(instant: number, style: Style): string {
  switch (style) {
    case Style.Z: return `${isoSeconds(instant)}Z`;
    case Style.Fraction: return new Date(instant).toISOString();
    case Style.PlusTwo: return `${isoSeconds(instant + 120 * 60_000)}+02:00`;
    case Style.MinusFive: return `${isoSeconds(instant - 300 * 60_000)}-05:00`;
  }
}

/**
 * hunting_globals.csv, streamed: row i falls at START + (i + r) * step (r in [0, 1)), so rows
 * come in time order and spread evenly over 90 days without sorting. About 2% of rows start a
 * tie group (a team kill): one to three more rows at the same instant, monster and land area,
 * for other players. Popular monsters and active players are drawn more often; each monster
 * roams one to three land areas (monster 1 always land area 101). No two rows are equal (the
 * loader would keep one): rows of the current second are remembered and a repeat is redrawn.
 */
export async function writeGlobals(ctx: GenerateContext, players: Players): Promise<void> {
  const { sizes } = ctx;
  const rng = new Rng(ctx.seed, 'globals');
  const monsterWeights = new Float64Array(sizes.monsters);
  for (let m = 0; m < sizes.monsters; m++) monsterWeights[m] = m === 0 ? 30 : 1 + 19 * rng.low();
  const monsters = new WeightedPicker(monsterWeights);
  const playerWeights = new Float64Array(sizes.players);
  for (let p = 0; p < sizes.players; p++) playerWeights[p] = 1 + 49 * rng.low();
  const pickPlayer = new WeightedPicker(playerWeights);
  const homes = new Int32Array(sizes.monsters * 3);
  for (let m = 0; m < sizes.monsters; m++) {
    for (let h = 0; h < 3; h++) homes[m * 3 + h] = FIRST_AREA_ID + rng.int(0, sizes.landareas - 1);
  }
  homes[0] = FIRST_AREA_ID;

  const total = sizes.globals;
  const step = GLOBALS_SPAN_MS / total;
  const start = GLOBALS_END_MS - GLOBALS_SPAN_MS;
  const out = ctx.open('hunting_globals.csv',
    ['MonsterID', 'TimeStamp', 'GlobalTypeID', 'GlobalValue', 'PlayerID', 'LandareaID'], total);
  let second = -1;
  const seen = new Set<string>();
  const value = () => 50 + Math.floor(49_950 * rng.low());
  const typeFor = (v: number, player: number) =>
    players.team[player] ? 4 : v >= 20_000 && rng.chance(0.5) ? 3 : v >= 5_000 && rng.chance(0.5) ? 2 : 1;
  let pending: Promise<void> | undefined;
  /** Writes a row unless the same global (same instant) is already there; false for a repeat. */
  const emit = (instant: number, ts: string, monster: number, player: number, v: number, area: number): boolean => {
    const s = Math.floor(instant / 1000);
    if (s !== second) {
      second = s;
      seen.clear();
    }
    const type = typeFor(v, player);
    const rest = `${type},${v},${players.ids[player]},${area}`;
    const key = `${monster},${instant},${rest}`;
    if (seen.has(key)) return false;
    seen.add(key);
    pending = out.line(`${FIRST_MONSTER_ID + monster},${ts},${rest}`);
    return true;
  };

  while (out.rows < total) {
    const ms = start + Math.floor((out.rows + rng.next()) * step);
    const r = rng.next();
    let style = r < 0.02 ? Style.Fraction : r < 0.03 ? Style.PlusTwo : r < 0.04 ? Style.MinusFive : Style.Z;
    if (style === Style.Fraction && ms % 1000 === 0) style = Style.Z;
    const instant = style === Style.Fraction ? ms : ms - (ms % 1000);
    const ts = stamp(instant, style);
    const monster = monsters.pick(rng);
    const area = homes[monster * 3 + rng.int(0, 2)];
    const player = pickPlayer.pick(rng);
    const v = value();
    if (!emit(instant, ts, monster, player, v, area)) continue;
    if (pending) await pending;
    pending = undefined;
    if (rng.chance(0.02)) {
      for (let t = rng.int(1, 3); t > 0 && out.rows < total; t--) {
        emit(instant, ts, monster, pickPlayer.pick(rng), rng.chance(0.4) ? v : value(), area);
        if (pending) await pending;
        pending = undefined;
      }
    }
  }
  await out.close();
}
