import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatasetError, loadDataset, type LoadOptions, type Problem, type ProgressEvent } from '../src/load';
import { CsvParser, type CsvRecord } from '../src/load/csv';
import { parseTimestamp, parseXsdBoolean, parseXsdDecimal, parseXsdInt } from '../src/xsd/values';
import { freshDatabase, type TestDatabase } from './support/db';

let db: TestDatabase;
const folders: string[] = [];
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.destroy();
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

const TABLES = [
  'professions', 'item_categories', 'auction_categories', 'planets', 'monsters', 'players', 'global_types',
  'weapons', 'weapon_damage', 'items', 'landareas', 'hunting_globals',
];

const WEAPONS_HEADER =
  'WeaponID,WeaponName,Description,ItemPictureURL,MinHitLevel,MaxHitLevel,MinDmgLevel,MaxDmgLevel,Weight,Range,' +
  'ImpactRadius,AttacksMin,Decay,AmmoBurn,TTValue,MinTTValue,TotalUses,SIBWeapon,HitProfessionID,DmgProfessionID,ItemID';
const GLOBALS_HEADER = 'MonsterID,TimeStamp,GlobalTypeID,GlobalValue,PlayerID,LandareaID';

/** A small dataset touching every file, type and nullable column. */
const BASE: Record<string, string> = {
  'professions.csv': '\ufeffProfessionID,ProfessionName\r\n1,Laser Sniper (Hit)\r\n2,Laser Sniper (Dmg)\r\n',
  'item_categories.csv': 'CategoryID,CategoryName\n10,Weapons\n11,Materials\n',
  'auction_categories.csv': 'CategoryID,CategoryName\n1,Armor\n2,"Weapons, ranged"\n',
  'planets.csv': 'PlanetID,PlanetName,Description\n1,Calypso,The first colony\n2,Arkadia,\n',
  'monsters.csv': 'MonsterID,MonsterName,Description,ItemPictureURL\n100,Atrox,"A ""big""\nbeast",http://img/atrox.png\n101,Daikiba,,\n',
  'players.csv': 'PlayerID,PlayerName,IsTeam\n500,Alice,0\n501,The Team,1\n502,Bob, false \n503,Carol,true\n',
  'global_types.csv': 'GlobalTypeID,GlobalTypeName\n1,Kill\n2,Team kill\n',
  'weapons.csv': `${WEAPONS_HEADER}\n` +
    '1000,Opalo,Starter pistol,http://img/opalo.png,0.1,12345678.12345,2.50,+3, 1.5 ,45,0,56,0.010, 12 ,0.5,-0.05,4000,1,1,2,2147483647\n' +
    '1001,Sollomate,,,1,2,3,4,5,6,7,8,9,-2147483648,10,11,0,0,2,2,77\n',
  'weapon_damage.csv': 'WeaponID,DamageTypeName,Damage\n1000,Burn,2.0\n1000,Cut,0.5\n1001,Impact,4\n',
  'items.csv': 'ItemID,ItemName,Description,ItemPictureURL,TTValue,CategoryID\n77,Opalo (L),,,0.1,10\n78,Wool,Soft,,0.01,11\n',
  'landareas.csv': 'AreaID,AreaName,PlanetID\n200,Eastern Land,1\n201,Nowhere,\n',
  'hunting_globals.csv': `${GLOBALS_HEADER}\n` +
    '100,2026-11-21T20:04:05+02:00,1,150,500,200\n101,2026-11-21T18:04:05.25Z,2,1000,501,201\n100,2026-11-22 01:00:00-0330,1,75,502,200\n',
};

function dataset(files: Record<string, string | Buffer>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-load-'));
  folders.push(dir);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

/** BASE with some files replaced (a null value removes a file). */
function variant(changes: Record<string, string | null>): string {
  const files = { ...BASE, ...changes };
  return dataset(Object.fromEntries(Object.entries(files).filter(([, v]) => v !== null)) as Record<string, string>);
}

async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES) out[t] = Number((await db.knex(t).count({ n: '*' }))[0].n);
  return out;
}

async function snapshot(): Promise<string> {
  const parts = [];
  for (const t of TABLES) parts.push(JSON.stringify(await db.knex(t).select().orderByRaw('1, 2')));
  return parts.join('\n');
}

/** Loading `dir` fails listing (at least) `expected`, and the database is exactly as before. */
async function rejects(dir: string, expected: Partial<Problem>[], opts: LoadOptions = {}): Promise<Problem[]> {
  const before = await snapshot();
  const error = await loadDataset(db.knex, dir, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatasetError);
  const { problems, message } = error as DatasetError;
  for (const p of expected) {
    expect(problems).toContainEqual(expect.objectContaining({
      ...p, ...(typeof p.reason === 'string' ? { reason: expect.stringContaining(p.reason) } : {}),
    }));
  }
  // The message shows every problem as a user reads it: file:line: column: reason (the line and
  // the column only when there is one).
  for (const p of problems) expect(message).toContain(`${p.file}${p.line > 0 ? `:${p.line}` : ''}: ${p.column ? `${p.column}: ` : ''}${p.reason}`);
  expect(await snapshot()).toBe(before);
  return problems;
}

beforeEach(async () => {
  await db.knex.raw(`TRUNCATE ${TABLES.join(', ')} RESTART IDENTITY CASCADE`);
  await loadDataset(db.knex, dataset(BASE));
});

describe('a complete dataset', () => {
  test('loads every file with the counts of what it did', async () => {
    await db.knex.raw(`TRUNCATE ${TABLES.join(', ')} RESTART IDENTITY CASCADE`);
    const events: ProgressEvent[] = [];
    const report = await loadDataset(db.knex, dataset(BASE), { onProgress: (e) => events.push(e) });
    expect(report.files.map((f) => f.file)).toEqual(TABLES.map((t) => `${t}.csv`));
    expect(report.files.find((f) => f.file === 'players.csv')).toEqual({
      file: 'players.csv', rows: 4, inserted: 4, updated: 0, unchanged: 0, deleted: 0,
    });
    expect(await counts()).toEqual({
      professions: 2, item_categories: 2, auction_categories: 2, planets: 2, monsters: 2, players: 4,
      global_types: 2, weapons: 2, weapon_damage: 3, items: 2, landareas: 2, hunting_globals: 3,
    });
    for (const phase of ['read', 'write']) {
      expect(events).toContainEqual(expect.objectContaining({ file: 'hunting_globals.csv', phase, done: 0 }));
    }
    expect(events.filter((e) => e.phase === 'write' && e.file === 'players.csv').at(-1)).toMatchObject({ done: 4, total: 4 });
  });

  test('reads back value for value', async () => {
    const [opalo, sollomate] = await db.knex('weapons').orderBy('weapon_id');
    expect(opalo).toEqual({
      weapon_id: 1000, weapon_name: 'Opalo', weapon_name_folded: 'opalo', description: 'Starter pistol', item_picture_url: 'http://img/opalo.png',
      min_hit_level: '0.1', max_hit_level: '12345678.12345', min_dmg_level: '2.50', max_dmg_level: '3',
      weight: '1.5', range: '45', impact_radius: '0', attacks_min: '56', decay: '0.010', ammo_burn: 12,
      tt_value: '0.5', min_tt_value: '-0.05', total_uses: 4000, sib_weapon: true, hit_profession_id: 1,
      dmg_profession_id: 2, item_id: 2147483647,
    });
    expect(sollomate).toMatchObject({ description: null, item_picture_url: null, ammo_burn: -2147483648, sib_weapon: false });
    expect(await db.knex('players').orderBy('player_id').pluck('is_team')).toEqual([false, true, false, true]);
    expect(await db.knex('monsters').where({ monster_id: 100 }).first()).toEqual({
      monster_id: 100, monster_name: 'Atrox', monster_name_folded: 'atrox', description: 'A "big"\nbeast', item_picture_url: 'http://img/atrox.png',
    });
    expect(await db.knex('monsters').where({ monster_id: 101 }).first()).toMatchObject({ description: null, item_picture_url: null });
    expect(await db.knex('planets').orderBy('planet_id').pluck('description')).toEqual(['The first colony', null]);
    expect(await db.knex('landareas').orderBy('area_id').pluck('planet_id')).toEqual([1, null]);
    expect(await db.knex('professions').orderBy('profession_id').pluck('profession_name')).toEqual(['Laser Sniper (Hit)', 'Laser Sniper (Dmg)']);
    expect(await db.knex('auction_categories').where({ category_id: 2 }).first()).toMatchObject({ category_name: 'Weapons, ranged' });
    expect(await db.knex('weapon_damage').where({ weapon_id: 1000 }).orderBy('damage_type_name').pluck('damage')).toEqual(['2.0', '0.5']);
    const globals = await db.knex('hunting_globals')
      .select(db.knex.raw(`to_char(time_stamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS utc`), 'global_value')
      .orderBy('global_value');
    expect(globals).toEqual([
      { utc: '2026-11-22T04:30:00.000', global_value: 75 },
      { utc: '2026-11-21T18:04:05.000', global_value: 150 },
      { utc: '2026-11-21T18:04:05.250', global_value: 1000 },
    ]);
  });

  test('a dataset of the sample data loads (smoke)', async () => {
    const sample = path.join(__dirname, '../seeds/data');
    await db.knex.raw(`TRUNCATE ${TABLES.join(', ')} RESTART IDENTITY CASCADE`);
    const report = await loadDataset(db.knex, sample);
    // Every file of the sample was read, and each row inserted.
    expect(report.files.map((f) => f.file).sort()).toEqual(fs.readdirSync(sample).filter((f) => f.endsWith('.csv')).sort());
    for (const f of report.files) expect({ file: f.file, inserted: f.inserted }).toEqual({ file: f.file, inserted: f.rows });
    expect(report.files.find((f) => f.file === 'hunting_globals.csv')!.rows).toBeGreaterThan(1000);
  });
});

describe('bad input is reported with file:line: column, and nothing is written', () => {
  const weapon = (cells: Record<number, string>) => {
    const row = '1002,Bad,,,1,2,3,4,5,6,7,8,9,10,11,12,13,1,1,2,77'.split(',');
    for (const [i, v] of Object.entries(cells)) row[Number(i)] = v;
    return { 'weapons.csv': `${WEAPONS_HEADER}\n${row.join(',')}\n` };
  };

  test.each([
    ['not an int', weapon({ 13: '12x' }), 'AmmoBurn', 'is not an int'],
    ['an int above the 32-bit range', weapon({ 16: '2147483648' }), 'TotalUses', 'out of the int range'],
    ['an int below the 32-bit range', weapon({ 20: '-2147483649' }), 'ItemID', 'out of the int range'],
    ['a decimal with an exponent', weapon({ 8: '1e5' }), 'Weight', 'is not a decimal'],
    ['a decimal that is text', weapon({ 9: 'abc' }), 'Range', 'is not a decimal'],
    ['a decimal that is only a point', weapon({ 4: '.' }), 'MinHitLevel', 'is not a decimal'],
    ['a boolean that is yes', weapon({ 17: 'yes' }), 'SIBWeapon', 'is not a boolean'],
    ['a boolean in capitals', weapon({ 17: 'TRUE' }), 'SIBWeapon', 'is not a boolean'],
    ['an empty required value', weapon({ 1: '' }), 'WeaponName', 'empty'],
    ['an empty required number', weapon({ 5: '  ' }), 'MaxHitLevel', 'empty'],
  ])('%s', async (_name, files, column, reason) => {
    await rejects(dataset(files), [{ file: 'weapons.csv', line: 2, column, reason }]);
  });

  test.each([
    ['without an offset', '2026-11-21T18:04:05', 'no UTC offset'],
    ['of garbage', 'yesterday', 'not an ISO 8601 date-time'],
    ['on a day that does not exist', '2026-02-29T10:00:00Z', 'not an ISO 8601 date-time'],
    ['with an hour out of range', '2026-02-20T24:00:00Z', 'not an ISO 8601 date-time'],
  ])('a timestamp %s', async (_name, stamp, reason) => {
    const files = { 'hunting_globals.csv': `${GLOBALS_HEADER}\n100,2026-01-01T00:00:00Z,1,5,500,200\n100,${stamp},1,5,500,200\n` };
    await rejects(dataset(files), [{ file: 'hunting_globals.csv', line: 3, column: 'TimeStamp', reason }]);
  });

  test('a missing, an unknown and a repeated column in the header', async () => {
    const problems = await rejects(dataset({
      'players.csv': 'PlayerID,PlayerName,Nickname,PlayerName\n9,Zed,z,Zed\n',
      'planets.csv': 'PlanetID,Planetname,Description\n9,Rocktropia,\n',
    }), [
      { file: 'players.csv', line: 1, column: 'IsTeam', reason: 'missing column' },
      { file: 'players.csv', line: 1, column: 'Nickname', reason: 'unknown column' },
      { file: 'players.csv', line: 1, column: 'PlayerName', reason: 'duplicate column' },
      { file: 'planets.csv', line: 1, column: 'Planetname', reason: 'did you mean PlanetName?' },
      { file: 'planets.csv', line: 1, column: 'PlanetName', reason: 'missing column' },
    ]);
    expect(problems.filter((p) => p.line > 1)).toEqual([]);
  });

  test('duplicate IDs, and duplicate damage types of a weapon', async () => {
    await rejects(dataset({
      'professions.csv': 'ProfessionID,ProfessionName\n7,A\n8,B\n+07,C\n',
      'weapon_damage.csv': 'WeaponID,DamageTypeName,Damage\n1000,Cut,1\n1000,Burn,1\n1000,Cut,2\n',
    }), [
      { file: 'professions.csv', line: 4, column: 'ProfessionID', reason: 'duplicate ProfessionID 7 (first on line 2)' },
      { file: 'weapon_damage.csv', line: 4, column: 'DamageTypeName', reason: 'duplicate "Cut" for WeaponID 1000 (first on line 2)' },
    ]);
  });

  test('references that resolve neither in the dataset nor in the database', async () => {
    await rejects(dataset({
      'monsters.csv': 'MonsterID,MonsterName,Description,ItemPictureURL\n102,Feffoid,,\n',
      'hunting_globals.csv': `${GLOBALS_HEADER}\n102,2026-01-01T00:00:00Z,1,5,500,200\n999,2026-01-01T00:00:00Z,3,5,500,200\n`,
      'items.csv': 'ItemID,ItemName,Description,ItemPictureURL,TTValue,CategoryID\n79,X,,,1,12\n',
      'landareas.csv': 'AreaID,AreaName,PlanetID\n202,Somewhere,3\n',
    }), [
      { file: 'hunting_globals.csv', line: 3, column: 'MonsterID', reason: 'no MonsterID 999 in monsters.csv or the database' },
      { file: 'hunting_globals.csv', line: 3, column: 'GlobalTypeID', reason: 'no GlobalTypeID 3' },
      { file: 'items.csv', line: 2, column: 'CategoryID', reason: 'no CategoryID 12' },
      { file: 'landareas.csv', line: 2, column: 'PlanetID', reason: 'no PlanetID 3' },
    ]);
  });

  test('a file that is not UTF-8', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('MonsterID,MonsterName,Description,ItemPictureURL\n102,Fine,,\n103,'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('Bad,,\n104,Caf'),
      Buffer.from([0xe9]),
      Buffer.from(',,\n'),
    ]);
    await rejects(dataset({ 'monsters.csv': latin1 }), [
      { file: 'monsters.csv', line: 3, column: '', reason: 'not valid UTF-8' },
      { file: 'monsters.csv', line: 4, column: '', reason: 'not valid UTF-8' },
    ]);
  });

  test('malformed CSV and records with the wrong number of cells', async () => {
    const problems = await rejects(dataset({
      'professions.csv': 'ProfessionID,ProfessionName\n7,"Multi\nline"\n8,Too,many\n9,"closed"x\n10,an "inner" quote\n11\n12,Fine\n',
      'planets.csv': 'PlanetID,PlanetName,Description\n9,"never closed,\n',
    }), [
      { file: 'professions.csv', line: 4, column: '', reason: '3 cells, but the header has 2' },
      { file: 'professions.csv', line: 5, column: '', reason: 'text after a closing quote' },
      { file: 'professions.csv', line: 6, column: '', reason: 'quote inside an unquoted field' },
      { file: 'professions.csv', line: 7, column: '', reason: '1 cells, but the header has 2' },
      { file: 'planets.csv', line: 2, column: '', reason: 'not closed' },
    ]);
    expect(problems.filter((p) => p.file === 'professions.csv')).toHaveLength(4);
  });

  test('a misnamed file, an empty file, a missing folder and a folder without dataset files', async () => {
    await rejects(dataset({ 'weapon.csv': `${WEAPONS_HEADER}\n`, 'professions.csv': '' }), [
      { file: 'weapon.csv', line: 0, reason: 'not a dataset file' },
      { file: 'professions.csv', line: 1, reason: 'no header row' },
    ]);
    const missing = path.join(os.tmpdir(), 'svapi-no-such-folder');
    await rejects(missing, [{ file: missing, reason: 'no such folder' }]);
    const empty = dataset({ 'README.txt': 'hello' });
    await rejects(empty, [{ file: empty, reason: 'no dataset files' }]);
  });

  test('problems in several files are all reported, in one error', async () => {
    const problems = await rejects(variant({
      'professions.csv': 'ProfessionID,ProfessionName\n1,Laser Sniper (Hit)\nx,Broken\n',
      'players.csv': 'PlayerID,PlayerName,IsTeam\n500,Alice,maybe\n501,The Team,1\n',
      'hunting_globals.csv': `${GLOBALS_HEADER}\n100,2026-11-21T20:04:05,1,150,500,200\n101,2026-11-21T18:04:05Z,2,1000,504,201\n`,
    }), [
      { file: 'professions.csv', line: 3, column: 'ProfessionID' },
      { file: 'players.csv', line: 2, column: 'IsTeam' },
      { file: 'hunting_globals.csv', line: 2, column: 'TimeStamp' },
      { file: 'hunting_globals.csv', line: 3, column: 'PlayerID', reason: 'no PlayerID 504 in players.csv or the database' },
    ]);
    expect(problems).toHaveLength(4);
  });

  test('a file full of problems reports the first thousand and a count of the rest', async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => `${i + 1},,`).join('\n');
    const problems = await rejects(dataset({ 'planets.csv': `PlanetID,PlanetName,Description\n${rows}\n` }), [
      { file: 'planets.csv', line: 2, column: 'PlanetName', reason: 'empty' },
      { file: 'planets.csv', line: 0, column: '', reason: '... 500 more problems' },
    ]);
    expect(problems).toHaveLength(1001);
  });
});

describe('upserts and --replace', () => {
  test('a changed row is updated, an unchanged one counted as such', async () => {
    const report = await loadDataset(db.knex, dataset({
      'monsters.csv': 'MonsterID,MonsterName,Description,ItemPictureURL\n100,Atrox Young,,\n101,Daikiba,,\n102,Feffoid,,\n',
      'weapons.csv': `${WEAPONS_HEADER}\n1001,Sollomate,,,1,2,3.0,4,5,6,7,8,9,-2147483648,10,11,0,0,2,2,77\n`,
    }));
    expect(report.files).toEqual([
      { file: 'monsters.csv', rows: 3, inserted: 1, updated: 1, unchanged: 1, deleted: 0 },
      // 3 -> 3.0 is a change: the service writes decimals as stored.
      { file: 'weapons.csv', rows: 1, inserted: 0, updated: 1, unchanged: 0, deleted: 0 },
    ]);
    expect(await db.knex('monsters').where({ monster_id: 100 }).first()).toEqual({
      monster_id: 100, monster_name: 'Atrox Young', monster_name_folded: 'atrox young', description: null, item_picture_url: null,
    });
    expect(await db.knex('weapons').where({ weapon_id: 1001 }).first()).toMatchObject({ min_dmg_level: '3.0' });
    expect((await counts()).monsters).toBe(3);
  });

  test("the damage rows of a weapon in the file replace that weapon's rows", async () => {
    const report = await loadDataset(db.knex, dataset({
      'weapon_damage.csv': 'WeaponID,DamageTypeName,Damage\n1000,Burn,3.5\n1000,Penetration,1\n',
    }));
    expect(report.files).toEqual([
      { file: 'weapon_damage.csv', rows: 2, inserted: 1, updated: 1, unchanged: 0, deleted: 1 },
    ]);
    expect(await db.knex('weapon_damage').orderBy(['weapon_id', 'damage_type_name']).select('weapon_id', 'damage_type_name', 'damage')).toEqual([
      { weapon_id: 1000, damage_type_name: 'Burn', damage: '3.5' },
      { weapon_id: 1000, damage_type_name: 'Penetration', damage: '1' },
      { weapon_id: 1001, damage_type_name: 'Impact', damage: '4' },
    ]);
  });

  test('loading the same globals twice adds nothing', async () => {
    const before = await counts();
    const report = await loadDataset(db.knex, dataset({ 'hunting_globals.csv': BASE['hunting_globals.csv'] }));
    expect(report.files).toEqual([{ file: 'hunting_globals.csv', rows: 3, inserted: 0, updated: 0, unchanged: 3, deleted: 0 }]);
    // The same instant written with another offset is the same global; repeats within a file too.
    const again = `${GLOBALS_HEADER}\n100,2026-11-21T18:04:05Z,1,150,500,200\n100,2026-11-21T18:04:05Z,1,150,500,200\n`;
    await loadDataset(db.knex, dataset({ 'hunting_globals.csv': again }));
    expect(await counts()).toEqual(before);
  });

  test('new globals go in next to those there: inserted, and the ones already there unchanged', async () => {
    const before = await counts();
    const report = await loadDataset(db.knex, dataset({
      'hunting_globals.csv': `${GLOBALS_HEADER}\n100,2026-11-21T18:04:05Z,1,150,500,200\n101,2026-12-01T00:00:00Z,1,7,503,201\n100,2026-12-01T00:00:01Z,2,8,502,200\n`,
    }));
    expect(report.files).toEqual([{ file: 'hunting_globals.csv', rows: 3, inserted: 2, updated: 0, unchanged: 1, deleted: 0 }]);
    expect(await counts()).toEqual({ ...before, hunting_globals: before.hunting_globals + 2 });
    expect(await db.knex('hunting_globals').where({ player_id: 503 }).select('monster_id', 'global_value')).toEqual([{ monster_id: 101, global_value: 7 }]);
  });

  test('a large file of globals refers to players only the database holds, batch after batch', async () => {
    const players = Array.from({ length: 400 }, (_, i) => `${1000 + i},P${i},0`).join('\n');
    await loadDataset(db.knex, dataset({ 'players.csv': `PlayerID,PlayerName,IsTeam\n${players}\n` }));
    // Some 900 KB: read in several batches, each naming players the ones before did not.
    const rows = Array.from({ length: 20_000 }, (_, i) =>
      `100,2027-01-01T00:00:00.${String(i).padStart(6, '0')}Z,1,${i},${1000 + Math.floor(i / 50)},200`);
    const good = dataset({ 'hunting_globals.csv': `${GLOBALS_HEADER}\n${rows.join('\n')}\n` });
    const bad = [...rows];
    bad[17_000] = '100,2027-01-01T00:00:00Z,1,1,1400,200';
    await rejects(dataset({ 'hunting_globals.csv': `${GLOBALS_HEADER}\n${bad.join('\n')}\n` }), [
      { file: 'hunting_globals.csv', line: 17_002, column: 'PlayerID', reason: 'no PlayerID 1400 in players.csv or the database' },
    ]);
    const report = await loadDataset(db.knex, good);
    expect(report.files).toEqual([{ file: 'hunting_globals.csv', rows: 20_000, inserted: 20_000, updated: 0, unchanged: 0, deleted: 0 }]);
    const perPlayer = await db.knex('hunting_globals').where('player_id', '>=', 1000).groupBy('player_id').select('player_id', db.knex.raw('count(*)::int AS n'));
    expect(perPlayer).toHaveLength(400);
    expect(perPlayer.every((r: { n: number }) => r.n === 50)).toBe(true);
  });

  test('references resolve in the database: professions first, then weapons alone', async () => {
    await loadDataset(db.knex, dataset({ 'professions.csv': 'ProfessionID,ProfessionName\n3,Ranged Laser (Hit)\n' }));
    await loadDataset(db.knex, dataset({ 'weapons.csv': `${WEAPONS_HEADER}\n1002,New,,,1,2,3,4,5,6,7,8,9,10,11,12,13,1,3,1,77\n` }));
    expect(await db.knex('weapons').where({ weapon_id: 1002 }).first()).toMatchObject({ hit_profession_id: 3, dmg_profession_id: 1 });
  });

  test('--replace removes the rows of the loaded kinds that the dataset lacks', async () => {
    const report = await loadDataset(db.knex, dataset({
      'monsters.csv': 'MonsterID,MonsterName,Description,ItemPictureURL\n100,Atrox,"A ""big""\nbeast",http://img/atrox.png\n',
      'hunting_globals.csv': `${GLOBALS_HEADER}\n100,2026-11-21T20:04:05+02:00,1,150,500,200\n100,2026-12-01T00:00:00Z,1,20,503,200\n`,
      'weapons.csv': `${WEAPONS_HEADER}\n1001,Sollomate,,,1,2,3,4,5,6,7,8,9,-2147483648,10,11,0,0,2,2,77\n`,
    }), { replace: true });
    expect(report.files).toEqual([
      { file: 'monsters.csv', rows: 1, inserted: 0, updated: 0, unchanged: 1, deleted: 1 },
      { file: 'weapons.csv', rows: 1, inserted: 0, updated: 0, unchanged: 1, deleted: 1 },
      { file: 'hunting_globals.csv', rows: 2, inserted: 1, updated: 0, unchanged: 1, deleted: 2 },
    ]);
    expect(await db.knex('monsters').pluck('monster_id')).toEqual([100]);
    expect(await db.knex('hunting_globals').orderBy('global_value').pluck('global_value')).toEqual([20, 150]);
    // Damage rows go with their weapon; kinds not in the dataset stay as they were.
    expect(await db.knex('weapon_damage').pluck('weapon_id')).toEqual([1001]);
    expect(await counts()).toMatchObject({ players: 4, landareas: 2, professions: 2, items: 2 });
  });

  test('--replace refuses to remove a record that rows it leaves alone still refer to', async () => {
    await rejects(dataset({
      'monsters.csv': 'MonsterID,MonsterName,Description,ItemPictureURL\n100,Atrox,,\n',
      'professions.csv': 'ProfessionID,ProfessionName\n1,Laser Sniper (Hit)\n',
    }), [
      { file: 'monsters.csv', line: 0, column: 'MonsterID', reason: 'MonsterID 101 is not in the file, but 1 hunting_globals row(s)' },
      { file: 'professions.csv', line: 0, column: 'ProfessionID', reason: 'ProfessionID 2 is not in the file, but 2 weapons row(s)' },
    ], { replace: true });
  });

  test('with --replace, a reference to a kind in the dataset must resolve in the dataset', async () => {
    await rejects(dataset({
      'professions.csv': 'ProfessionID,ProfessionName\n1,Laser Sniper (Hit)\n',
      'weapons.csv': `${WEAPONS_HEADER}\n1001,Sollomate,,,1,2,3,4,5,6,7,8,9,10,11,12,0,0,2,1,77\n`,
    }), [{ file: 'weapons.csv', line: 2, column: 'HitProfessionID', reason: 'no ProfessionID 2 in professions.csv' }], { replace: true });
    // Without --replace the database's profession 2 counts.
    await loadDataset(db.knex, dataset({
      'professions.csv': 'ProfessionID,ProfessionName\n1,Laser Sniper (Hit)\n',
      'weapons.csv': `${WEAPONS_HEADER}\n1001,Sollomate,,,1,2,3,4,5,6,7,8,9,10,11,12,0,0,2,1,77\n`,
    }));
  });
});

describe('reading files', () => {
  test('records and line numbers do not depend on where chunks end', () => {
    const text = '\ufeffa,b\r\n1,"x\r\ny"\r\n\r\n2,""\n"q""q",3\n4,"5"x\n6,7\n8,a"b\n"",\n"9",10';
    const parse = (size: number) => {
      const problems: string[] = [];
      const out: CsvRecord[] = [];
      const parser = new CsvParser((line, reason) => problems.push(`${line}: ${reason}`));
      for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size), out);
      parser.end(out);
      return { out, problems };
    };
    const whole = parse(text.length);
    expect(whole.out).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', 'x\r\ny'] },
      { line: 5, cells: ['2', ''] },
      { line: 6, cells: ['q"q', '3'] },
      { line: 8, cells: ['6', '7'] },
      { line: 10, cells: ['', ''] },
      { line: 11, cells: ['9', '10'] },
    ]);
    expect(whole.problems.map((p) => p.slice(0, 2))).toEqual(['7:', '9:']);
    for (let size = 1; size < 8; size++) expect(parse(size)).toEqual(whole);
  });

  test('a large file: characters split across reads, a bad byte deep inside', async () => {
    const names = Array.from({ length: 30000 }, (_, i) => `${1000 + i},Ünïcødé 😀 monster ${i},${'€'.repeat(20)},`);
    const header = 'MonsterID,MonsterName,Description,ItemPictureURL\n';
    const good = Buffer.from(`${header}${names.join('\n')}\n`);
    expect(good.length).toBeGreaterThan(2 * 1024 * 1024);
    const bad = Buffer.from(good);
    const at = bad.indexOf('monster 25000,');
    bad[at + 2] = 0xc3; // a lead byte followed by ASCII
    await rejects(dataset({ 'monsters.csv': bad }), [{ file: 'monsters.csv', line: 25002, column: '', reason: 'not valid UTF-8' }]);
    const report = await loadDataset(db.knex, dataset({ 'monsters.csv': good }));
    expect(report.files[0]).toMatchObject({ rows: 30000, inserted: 30000 });
    expect(await db.knex('monsters').where({ monster_id: 30999 }).first()).toMatchObject({ monster_name: 'Ünïcødé 😀 monster 29999', description: '€'.repeat(20) });
  });
});

describe('value parsers', () => {
  test('XSD int', () => {
    expect(parseXsdInt(' +0042\n')).toEqual({ value: 42 });
    // Plain digits (read without the expression) as with the sign, spaces or more digits.
    for (const digits of ['0', '7', '007', '42', '123456789', '000000000', '999999999']) {
      expect(parseXsdInt(digits)).toEqual({ value: Number(digits) });
      expect(parseXsdInt(` +${digits}`)).toEqual({ value: Number(digits) });
      expect(parseXsdInt(`0${digits}`)).toEqual({ value: Number(digits) });
    }
    for (const text of ['', '1a', 'a1', '1.0', '1 2', '٣', '1e3', '+', '-']) expect(parseXsdInt(text)).toEqual({ error: expect.any(String) });
    expect(parseXsdInt('-0')).toEqual({ value: 0 });
    expect(parseXsdInt('-2147483648')).toEqual({ value: -2147483648 });
    expect(parseXsdInt('00000000002147483647')).toEqual({ value: 2147483647 });
    for (const bad of ['', ' ', '1.0', '1e3', '0x10', '+-1', '2147483648', '99999999999999999999', '１']) {
      expect(parseXsdInt(bad).error).toBeDefined();
    }
  });

  test('XSD decimal keeps the digits as written', () => {
    expect(parseXsdDecimal(' +2.50 ')).toEqual({ value: '2.50' });
    expect(parseXsdDecimal('-.5')).toEqual({ value: '-.5' });
    expect(parseXsdDecimal('7.')).toEqual({ value: '7.' });
    expect(parseXsdDecimal('12345678.12345')).toEqual({ value: '12345678.12345' });
    for (const bad of ['', '.', '1e5', 'abc', '1,5', 'NaN', 'Infinity', '--1', '1 000']) {
      expect(parseXsdDecimal(bad).error).toBeDefined();
    }
  });

  test('XSD boolean', () => {
    expect([' true', '1', 'false ', '0'].map((t) => parseXsdBoolean(t).value)).toEqual([true, true, false, false]);
    for (const bad of ['True', 'yes', '', '2']) expect(parseXsdBoolean(bad).error).toBeDefined();
  });

  test('timestamps need an offset', () => {
    expect(parseTimestamp('2024-02-29t10:00z')).toEqual({ value: '2024-02-29T10:00:00Z' });
    expect(parseTimestamp('2026-11-21T18:04:05.123456+0530')).toEqual({ value: '2026-11-21T18:04:05.123456+05:30' });
    expect(parseTimestamp('2026-11-21T18:04:05-03')).toEqual({ value: '2026-11-21T18:04:05-03:00' });
    expect(parseTimestamp(' 2026-11-21T18:04:05-14:00 ')).toEqual({ value: '2026-11-21T18:04:05-14:00' });
    for (const bad of ['2026-11-21', '2026-11-21T18:04:05', '2023-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-21T18:60:00Z', '2026-11-21T18:00:00+14:30', '21/11/2026 18:04 +00:00']) {
      expect(parseTimestamp(bad).error).toBeDefined();
    }
  });
});

test('a load leaves fresh planner statistics on the tables it changed', async () => {
  const { knex } = db;
  await loadDataset(knex, dataset({ 'auction_categories.csv': 'CategoryID,CategoryName\n9001,Stats A\n9002,Stats B\n' }));
  const { n } = (await knex('auction_categories').count({ n: '*' }))[0];
  const stats = await knex.raw(`SELECT reltuples FROM pg_class WHERE relname = 'auction_categories'`);
  expect(stats.rows[0].reltuples).toBe(Number(n));
});

test('a small load leaves the statistics of a large table; a tenth of its rows or more refreshes them', async () => {
  const { knex } = db;
  const counted = async () => Number((await knex.raw(`SELECT reltuples FROM pg_class WHERE relname = 'auction_categories'`)).rows[0].reltuples);
  const categories = (from: number, n: number) =>
    `CategoryID,CategoryName\n${Array.from({ length: n }, (_, i) => `${from + i},C${from + i}`).join('\n')}\n`;
  await loadDataset(knex, dataset({ 'auction_categories.csv': categories(8000, 98) }));
  expect(await counted()).toBe(100);
  await loadDataset(knex, dataset({ 'auction_categories.csv': categories(8100, 1) }));
  expect(await counted()).toBe(100);
  await loadDataset(knex, dataset({ 'auction_categories.csv': categories(8200, 10) }));
  expect(await counted()).toBe(111);
});
