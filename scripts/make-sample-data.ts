// Generates the bundled sample dataset in seeds/data/*.csv (all names are invented).
// Deterministic: a fixed-seed PRNG, fixed dates and exact arithmetic only (no Math.exp/log/now),
// so every run writes byte-identical files.   Run: npx tsx scripts/make-sample-data.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { csvField, type Cell } from '../src/generate/csv';
import { Rng } from '../src/generate/rng';

const OUT = join(__dirname, '..', 'seeds', 'data');

// The generator's PRNG from the raw mulberry32 state this script has always used, so the files stay the same.
const rng = Rng.fromState(20261121);
const rnd = (): number => rng.next();
const int = (lo: number, hi: number): number => rng.int(lo, hi);
const pick = <T>(a: readonly T[]): T => rng.pick(a);
const shuffle = <T>(a: T[]): T[] => rng.shuffle(a);
const low = (): number => rng.low(); // skewed towards 0
const bool = (v: boolean, i: number): string => (i % 11 === 5 ? (v ? '1' : '0') : String(v)); // a few 1/0

function writeCsv(file: string, header: string[], rows: Cell[][]): void {
  const lines = [header, ...rows].map((r) => r.map(csvField).join(','));
  writeFileSync(join(OUT, file), lines.join('\n') + '\n', 'utf8');
  console.log(`${file}: ${rows.length} rows`);
}

// Description / picture nil cases by position: 1 = both empty, 3 = only Description empty,
// 5 = only ItemPictureURL empty, anything else = both present.
function descAndPic(i: number, desc: string, kind: string, id: number): [Cell, Cell] {
  const url = `https://img.example.com/${kind}/${id}.png`;
  const v = i % 8;
  return [v === 1 || v === 3 ? null : desc, v === 1 || v === 5 ? null : url];
}
const FLAVOUR: ((name: string) => string)[] = [
  (n: string) => `${n} is sturdy, cheap to run and easy to repair.`,
  (n: string) => `Veterans call ${n} "the workhorse", and with good reason.`,
  () => 'Rarely seen on the market; prized by collectors, traders and hunters alike.',
  () => 'Standard issue for new colonists.',
  () => 'Said to be "unbreakable", though nobody has tested that claim.',
  () => 'Recovered from the wreck of the "Long Night", a colony hauler.',
];

// ---------- professions & weapons ----------
const CLASSES: [string, string[], string[]][] = [
  ['Laser Sniper', ['Burn', 'Penetration', 'Electric'], ['Korvus H410 (L)', 'ArcMatrix LR-38 (L)', 'Brightline S-12 (L)',
    'Harrow Sniper HS-90 (L)', 'Vanta Longrifle', 'Quellon LR-40', 'The "Widowmaker" (L)', 'Стрела-7 Longrifle']],
  ['Handgun', ['Impact', 'Penetration', 'Burn', 'Stab'], ['Opalo', 'Opalo Improved', 'Sollvane Opalo', 'Gale P-5',
    'Gale P-5 Adjusted', 'Cinder Pistol', 'Rift Pistol, Mk. III', 'Astra Handcannon']],
  ['Plasma Rifleman', ['Burn', 'Electric', 'Penetration', 'Acid'], ['Ion_Blaster Mk2', 'Vexa Plasma Carbine',
    'Hart & Söhne Repeater', 'Nova <Prototype> Lance', 'Kestrel SMG-20', 'Breacher Mk1', 'Breacher Mk1 Modified', 'Spindle Needler']],
  ['Swordsman', ['Cut', 'Stab', 'Impact', 'Electric'], ['Thornwood Sabre', 'Talon Knife', 'Skarn Warhammer', 'Zig\\Zag Blade',
    'Wyrmfang Glaive', 'Moonglass Dagger', 'Übergrößé Klinge', 'Voltaic Whip']],
  ['Mindforce Adept', ['Cold', 'Electric', 'Burn', 'Acid'], ['Ember Chip I', 'Ember Chip II (L)', 'Frostbite Chip IV',
    'Halcyon Mindstaff', 'Corrosa Acid Chip', 'Stormcaller Chip III', '雷電 Chip V', 'Dusk Reaper Chip']],
  ['Grenadier', ['Impact', 'Shrapnel', 'Burn', 'Penetration'], ['Ruin Launcher GL-8', 'Pyrex Flamer F-3', 'Mörser M-12',
    'Thumper BL-2', 'Shardstorm Mortar', "Kiran's Boomstick", 'Hailfire Pod', 'Quake Launcher (L)']],
];
const professions: Cell[][] = CLASSES.flatMap(([c], k) => [[2 * k + 1, `${c} (Hit)`], [2 * k + 2, `${c} (Dmg)`]]);
professions.push([13, 'Miner'], [14, 'Tailor']);

// ---------- item categories & items ----------
const ITEM_CATS: [string, string[]][] = [
  ['Animal Materials', ['Hide', 'Fang', 'Bone', 'Sinew', 'Scale', 'Claw']],
  ['Robot Parts', ['Servo', 'Circuit', 'Plating', 'Optic', 'Core', 'Gyro']],
  ['Ores', ['Ore', 'Ingot', 'Nugget', 'Shard']],
  ['Enmatters', ['Essence', 'Fluid', 'Resin', 'Dust']],
  ['Textures', ['Leather', 'Weave', 'Fabric', 'Pelt Texture']],
  ['Blueprints', ['Pistol Blueprint', 'Rifle Blueprint', 'Armor Blueprint', 'Tool Blueprint']],
  ['Armor Parts', ['Helmet', 'Harness', 'Gloves', 'Boots', 'Thigh Guards', 'Arm Guards']],
  ['Weapon Attachments', ['Scope', 'Amplifier', 'Laser Sight', 'Absorber', 'Barrel']],
  ['Medical Tools', ['Med Kit', 'Stim Pack', 'Healing Chip', 'Bandage']],
  ['Consumables', ['Ration', 'Pill', 'Tonic', 'Energy Bar']],
  ['Clothing', ['Coat', 'Shirt', 'Hat', 'Pants', 'Cloak']],
  ['Furniture & Decor', ['Chair', 'Lamp', 'Table', 'Rug', 'Statue']],
  ['Vehicles', ['Hoverbike', 'Skiff', 'Quad', 'Glider']],
];
const itemCategories: Cell[][] = ITEM_CATS.map(([n], k) => [k + 1, n]);
// [name, categoryID, fixed TTValue or null]
const SPECIAL_ITEMS: [string, number, string | null][] = [
  ['Animal Oil', 1, '0.50'], ['animal oil residue', 1, '0.02'], ['Animal Oil Concentrate', 4, null], ['100% Pure Oil', 4, '2.50'],
  ['50% Off Voucher', 10, '0.10'], ['Nuts & Bolts', 2, null], ['Crate <Sealed>', 10, null], ['Rock > Paper Trophy', 12, '25.00'],
  ['Oil, Crude', 4, null], ['The "Lucky" Coin', 10, '0.01'], ["Trader's Token", 10, '1.00'], ['Gear_Box_7', 2, null],
  ['Vault\\Key Fragment', 10, null], ['Mörk Fjäril Wing', 1, null], ['Ñandú Feather', 1, null], ['Übergrößé Plate', 7, null],
  ['Шкура волка', 1, null], ['龍の鱗', 1, null], ['Ancient Star Charter', 6, '12345678.12345'],
];
const PREFIXES = ['Ashen', 'Brisk', 'Coral', 'Dusk', 'Ember', 'Feral', 'Gilded', 'Hollow', 'Ivory', 'Jade',
  'Keen', 'Lunar', 'Molten', 'Nether', 'Onyx', 'Pale', 'Quartz', 'Rust', 'Storm', 'Tidal'];
const itemDefs: [string, number, string | null][] = [...SPECIAL_ITEMS];
for (let k = 0; k < ITEM_CATS.length; k++) {
  const combos = shuffle(PREFIXES.flatMap((p) => ITEM_CATS[k][1].map((n) => `${p} ${n}`)));
  itemDefs.push(...combos.slice(0, 10).map((n): [string, number, null] => [n, k + 1, null]));
}
const items: Cell[][] = itemDefs.map(([name, cat, tt], i) => {
  const id = 2001 + i;
  const value = tt ?? (cat === 3 || cat === 4 ? (0.0001 + low()).toFixed(5) : (0.01 + 4999.99 * low()).toFixed(2));
  return [id, name, ...descAndPic(i, pick(FLAVOUR)(name), 'items', id), value, cat];
});

// ---------- weapons & their damage ----------
const weapons: Cell[][] = [];
const weaponDamage: Cell[][] = [];
CLASSES.forEach(([, dmgTypes, names], k) => names.forEach((name) => {
  const i = weapons.length;
  const id = 101 + i;
  const d1 = (x: number): string => x.toFixed(1);
  const minHit = int(0, 300) / 10, minDmg = int(0, 400) / 10;
  const tt = (5 + 495 * rnd()).toFixed(2), minTT = (Number(tt) * 0.1 * rnd()).toFixed(2);
  const decay = (0.01 + 2 * rnd()).toFixed(3);
  weapons.push([
    id, name, ...descAndPic(i, pick(FLAVOUR)(name), 'weapons', id),
    d1(minHit), d1(minHit + int(50, 400) / 10), d1(minDmg), d1(minDmg + int(50, 500) / 10),
    k === 4 ? '0.1' : d1(0.5 + 6 * rnd()), // weight: mindforce chips weigh exactly 0.1
    k === 3 ? d1(1.5 + 2 * rnd()) : d1(20 + 90 * rnd()), // range
    k === 5 ? (2 + int(0, 20) / 4).toFixed(2) : '0', // impact radius
    d1(12 + 60 * rnd()), decay,
    k === 3 || (k === 4 && i % 2 === 0) ? 0 : int(50, 2500), // ammo burn
    tt, minTT, Math.floor(((Number(tt) - Number(minTT)) * 100) / Number(decay)),
    bool(rnd() < 0.6, i), 2 * k + 1, 2 * k + 2,
    i % 3 === 0 ? 2001 + int(0, itemDefs.length - 1) : 900000 + id, // item id: sometimes a real item, sometimes not
  ]);
  // every 9th weapon (from index 4) has no damage rows; the rest have 1..4 damage types
  const n = i % 9 === 4 ? 0 : rnd() < 0.3 ? 1 : int(2, dmgTypes.length);
  for (const t of shuffle([...dmgTypes]).slice(0, n)) weaponDamage.push([id, t, d1(int(10, 600) / 10)]);
}));

// ---------- auction categories ----------
const AUCTION = ['Weapons', 'Weapon Attachments', 'Armor', 'Armor Plates', 'Clothing', 'Tools', 'Finders', 'Excavators',
  'Refiners', 'Medical Tools', 'Blueprints', 'Animal Materials', 'Robot Parts', 'Ores', 'Enmatters', 'Refined Materials',
  'Textures', 'Furniture & Decor', 'Vehicles', 'Pets', 'Consumables', 'Land Deeds', 'Miscellaneous'];
const auctionCategories: Cell[][] = AUCTION.map((n, k) => [k + 1, n]);

// ---------- monsters ----------
const MONSTER_NAMES = ['Argonaut', 'Atrox Young', 'Old Atrox', 'Atroxine', 'Atrox', 'Mörk Fjäril', 'Ñandú', 'Болотник',
  '鬼火', 'Gloom & Doom Beetle', "Kraken's Spawn", 'The "Matriarch"', 'Snarl, the Unbroken', '<Unknown Signal>',
  'Vesper Moth', 'Grimscale', 'Thornback', 'Dune Stalker', 'Quillhog', 'Marsh Leaper', 'Ironhide Bull', 'Sky Ray',
  'Cave Crawler', 'Molten Golem', 'Frost Wyrm', 'Shardling', 'Bog Troll', 'Razorfin', 'Hollow Sentinel', 'Ember Drake',
  'Void Leech', 'Sandskipper', 'Gravemaw', 'Stormhorn', 'Übergrößé Tick', 'Mire_Hound'];
const monsters: Cell[][] = MONSTER_NAMES.map((name, i) => {
  const d = `A ${pick(['territorial', 'nocturnal', 'pack-hunting', 'solitary'])} creature, ${pick(['common', 'rare', 'feared'])} in the wilds.`;
  return [i + 1, name, ...descAndPic(i, d, 'monsters', i + 1)];
});

// ---------- planets & land areas ----------
const planets: Cell[][] = [
  [1, 'Veridia Prime', 'A temperate, resource-rich colony world; the "gateway" for new settlers.'],
  [2, 'Ashfall', 'Volcanic world of ash storms, lava flows and rich ore veins.'],
  [3, 'Nereon', 'Ocean planet dotted with floating platforms.'],
  [4, 'Kharos Minor', 'Frozen moon, home of the "Pale Legion".'],
  [5, 'Thule Station', null],
  [6, 'Ørn Belt', 'Asteroid belt mined by independent crews.'],
];
const landareas: Cell[][] = [
  [101, 'Port Veridia Outskirts', 1], [102, 'Greenhollow Plains', 1], [103, "Eudora's Rest", 1], [104, 'Swamp & Mire', 1],
  [105, 'Cinder Flats', 2], [106, 'Ashfall, North Rim', 2], [107, 'Camp Ñandú', 1], [108, 'Obsidian Gorge', 2],
  [109, 'Reef Platform 9', 3], [110, 'Tidewatch', 3], [111, 'Deep Trench <Restricted>', 3], [112, 'Pale Glacier', 4],
  [113, 'Frostmarch', 4], [114, 'Kharos Minor Crater', 4], [115, 'Station Ring A', 5], [116, 'Ørn Belt Mining Field', 6],
  [117, 'Uncharted Rift', null], [118, 'Event Arena "Colosseum"', null],
];

// ---------- players ----------
const SPECIAL_PLAYERS: [string, boolean][] = [
  ['Mira "Blaze" Tallis', false], ['Bears & Bulls', true], ['Team <Alpha>', true], ['Pew_Pew_Crew', true],
  ['50% Loot Club', true], ['Back\\Slashers', true], ['Night Owls', true], ['Iron Covenant', true], ['Fjäril Syndikat', true],
  ["Dara O'Rourke Ironside", false], ['Zoë Ünal', false], ['Иван Петров', false], ['王小明', false],
  ['Rex "Ace" Brandt, Jr.', false], ['Ñoño Kid', false], ['x>y', false],
];
const FIRST = ['Ada', 'Bram', 'Cato', 'Dara', 'Eli', 'Fenn', 'Gia', 'Hale', 'Isla', 'Jax', 'Kira', 'Lio', 'Mace', 'Nia', 'Oren'];
const NICK = ['Ace', 'Rook', 'Viper', 'Ghost', 'Spark', 'Drift', 'Wolf', 'Echo'];
const LAST = ['Varn', 'Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Castell', 'Reyes', 'Novak', 'Ashby'];
const playerDefs: [string, boolean][] = [...SPECIAL_PLAYERS];
const taken = new Set<string>();
while (playerDefs.length < 72) {
  const n = `${pick(FIRST)} ${pick(NICK)} ${pick(LAST)}`;
  if (!taken.has(n)) { taken.add(n); playerDefs.push([n, false]); }
}
const playerIds = new Set<number>([777001]);
const players: Cell[][] = playerDefs.map(([name, team], i) => {
  let id = 777001;
  if (i > 0) do id = int(100000, 999999); while (playerIds.has(id));
  playerIds.add(id);
  return [id, name, bool(team, i)];
});
const isTeam = new Map(players.map((p, i) => [p[0] as number, playerDefs[i][1]]));

// ---------- global types & hunting globals ----------
const globalTypes: Cell[][] = [[1, 'Hunting'], [2, 'Hall of Fame'], [3, 'ATH'], [4, 'Team Hunting']];
const END = Date.UTC(2026, 10, 21, 23, 59, 59); // 2026-11-21T23:59:59Z
const SPAN = 90 * 86400; // seconds
type G = { m: number; ms: number; ts: string; type: number; value: number; player: number; area: number };
function stamp(ms: number, style: number): string { // 0 = Z, 1 = +02:00, 2 = -05:00, 3 = fractional Z
  if (style === 3) return new Date(ms).toISOString();
  const off = [0, 120, -300][style];
  const local = new Date(ms + off * 60000).toISOString().slice(0, 19);
  return style === 0 ? `${local}Z` : `${local}${off > 0 ? '+' : '-'}${String(Math.abs(off) / 60).padStart(2, '0')}:00`;
}
const globals: G[] = [];
const seen = new Set<string>();
function add(g: Omit<G, 'ts'>, style = 0): void {
  const key = [g.m, g.ms, g.type, g.value, g.player, g.area].join('|');
  if (seen.has(key)) return;
  seen.add(key);
  globals.push({ ...g, ts: stamp(g.ms, style) });
}
const typeFor = (value: number, player: number): number =>
  isTeam.get(player) ? 4 : value >= 20000 && rnd() < 0.5 ? 3 : value >= 5000 && rnd() < 0.5 ? 2 : 1;
const areaIds = landareas.map((a) => a[0] as number);
const homes = MONSTER_NAMES.map((_, i) => [areaIds[i % areaIds.length], pick(areaIds)]);
homes[0] = [117, 101, 107]; // monster 1 also roams the planet-less Uncharted Rift
homes[4] = [107, 104]; // monster 5 (Atrox) lives around Camp Ñandú
const monsterPool = MONSTER_NAMES.flatMap((_, i) => Array<number>(i === 4 ? 4 : int(1, 3)).fill(i + 1));
const playerPool = players.flatMap((p) => Array<number>(p[0] === 777001 ? 3 : int(1, 3)).fill(p[0] as number));
const randomValue = (): number => 50 + Math.floor(49950 * low());

for (let i = 0; i < 3150; i++) {
  const m = pick(monsterPool), player = pick(playerPool), value = randomValue();
  const r = rnd(), style = r < 0.03 ? 1 : r < 0.05 ? 2 : r < 0.09 ? 3 : 0;
  const ms = END - int(0, SPAN - 1) * 1000 + (style === 3 ? pick([250, 500, 125, 999, 1, 750]) - 1000 : 0);
  add({ m, ms, type: typeFor(value, player), value, player, area: pick(homes[m - 1]) }, style);
}
// Random tie groups: the same monster, area and instant (same text), other players or values (e.g. a team kill).
for (let i = 0; i < 45; i++) {
  const base = globals[int(0, globals.length - 1)];
  const style = base.ts.endsWith('Z') ? (base.ts.includes('.') ? 3 : 0) : base.ts.includes('+') ? 1 : 2;
  for (let j = int(1, 3); j > 0; j--) {
    const player = rnd() < 0.6 ? pick(playerPool) : base.player, value = rnd() < 0.4 ? base.value : randomValue();
    add({ ...base, player, value, type: typeFor(value, player) }, style);
  }
}
// Hand-made ties for the documented special cases (monster 5, monster 1, area 107, area 117, player 777001).
const at = (iso: string): number => Date.parse(iso);
const [teamA, teamB] = players.filter((p) => isTeam.get(p[0] as number)).map((p) => p[0] as number);
const other = players[20][0] as number;
for (const [player, value, type] of [[777001, 1200, 1], [teamA, 1200, 4], [teamB, 860, 4]])
  add({ m: 5, ms: at('2026-11-20T18:30:00Z'), type, value, player, area: 107 }); // same monster+instant, equal values
for (const player of [777001, other, teamA]) add({ m: 1, ms: at('2026-10-05T09:15:00Z'), type: 1, value: 75, player, area: 117 });
for (const m of [5, 1]) add({ m, ms: at('2026-11-01T12:00:00Z'), type: 1, value: 333, player: 777001, area: 107 });
for (const type of [1, 2]) add({ m: 5, ms: at('2026-10-20T07:45:00Z'), type, value: 5000, player: 777001, area: 107 });
[0, 1, 2].forEach((style, k) => // one instant written three ways: Z, +02:00 and -05:00
  add({ m: 5, ms: at('2026-09-14T10:00:00Z'), type: 1, value: 150 + k, player: [777001, other, teamA][k], area: 107 }, style));
add({ m: 5, ms: at('2026-10-31T23:59:59Z'), type: 1, value: 99, player: other, area: 107 });
for (const player of [777001, other]) add({ m: 5, ms: at('2026-10-31T23:59:59.250Z'), type: 1, value: 99, player, area: 107 }, 3);

globals.sort((a, b) => a.ms - b.ms || a.m - b.m || a.player - b.player || a.type - b.type || a.value - b.value || a.area - b.area);

mkdirSync(OUT, { recursive: true });
writeCsv('professions.csv', ['ProfessionID', 'ProfessionName'], professions);
writeCsv('weapons.csv', ['WeaponID', 'WeaponName', 'Description', 'ItemPictureURL', 'MinHitLevel', 'MaxHitLevel',
  'MinDmgLevel', 'MaxDmgLevel', 'Weight', 'Range', 'ImpactRadius', 'AttacksMin', 'Decay', 'AmmoBurn', 'TTValue',
  'MinTTValue', 'TotalUses', 'SIBWeapon', 'HitProfessionID', 'DmgProfessionID', 'ItemID'], weapons);
writeCsv('weapon_damage.csv', ['WeaponID', 'DamageTypeName', 'Damage'], weaponDamage);
writeCsv('item_categories.csv', ['CategoryID', 'CategoryName'], itemCategories);
writeCsv('items.csv', ['ItemID', 'ItemName', 'Description', 'ItemPictureURL', 'TTValue', 'CategoryID'], items);
writeCsv('auction_categories.csv', ['CategoryID', 'CategoryName'], auctionCategories);
writeCsv('monsters.csv', ['MonsterID', 'MonsterName', 'Description', 'ItemPictureURL'], monsters);
writeCsv('planets.csv', ['PlanetID', 'PlanetName', 'Description'], planets);
writeCsv('landareas.csv', ['AreaID', 'AreaName', 'PlanetID'], landareas);
writeCsv('players.csv', ['PlayerID', 'PlayerName', 'IsTeam'], players);
writeCsv('global_types.csv', ['GlobalTypeID', 'GlobalTypeName'], globalTypes);
writeCsv('hunting_globals.csv', ['MonsterID', 'TimeStamp', 'GlobalTypeID', 'GlobalValue', 'PlayerID', 'LandareaID'],
  globals.map((g) => [g.m, g.ts, g.type, g.value, g.player, g.area]));
