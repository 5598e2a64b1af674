/**
 * Writes a benchmark dataset: a few monsters, players, land areas and global types, and
 * COUNT hunting globals. `npx tsx scripts/gen-globals.ts <dir> [count=1000000]`
 */
import fs from 'node:fs';
import path from 'node:path';

const [dir, countArg = '1000000'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: gen-globals <dir> [count]');
  process.exit(2);
}
const count = Number(countArg);
const MONSTERS = 200;
const PLAYERS = 5000;
const AREAS = 50;
const TYPES = 4;

// Deterministic, so two runs write the same file.
let seed = 42;
const random = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};

fs.mkdirSync(dir, { recursive: true });
const write = (file: string, header: string, lines: string[]) =>
  fs.writeFileSync(path.join(dir, file), `${header}\n${lines.join('\n')}\n`);
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

write('planets.csv', 'PlanetID,PlanetName,Description', ['1,Calypso,', '2,Arkadia,Moon world']);
write('landareas.csv', 'AreaID,AreaName,PlanetID', range(AREAS).map((i) => `${i},Area ${i},${(i % 2) + 1}`));
write('monsters.csv', 'MonsterID,MonsterName,Description,ItemPictureURL', range(MONSTERS).map((i) => `${i},Monster ${i},,`));
write('players.csv', 'PlayerID,PlayerName,IsTeam', range(PLAYERS).map((i) => `${i},Player ${i},${i % 10 === 0 ? 1 : 0}`));
write('global_types.csv', 'GlobalTypeID,GlobalTypeName', range(TYPES).map((i) => `${i},Type ${i}`));

const out = fs.createWriteStream(path.join(dir, 'hunting_globals.csv'));
out.write('MonsterID,TimeStamp,GlobalTypeID,GlobalValue,PlayerID,LandareaID\n');
const start = Date.UTC(2020, 0, 1) / 1000;
let chunk = '';
for (let i = 0; i < count; i++) {
  const time = new Date((start + i * 60 + random(60)) * 1000).toISOString().replace('.000Z', 'Z');
  chunk += `${random(MONSTERS) + 1},${time},${random(TYPES) + 1},${50 + random(100000)},${random(PLAYERS) + 1},${random(AREAS) + 1}\n`;
  if (chunk.length > 1 << 20) {
    out.write(chunk);
    chunk = '';
  }
}
out.end(chunk);
