import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDataset, SEARCH_WORD, sizesFor, type GenerateReport } from '../src/generate';
import { loadDataset } from '../src/load';
import { freshDatabase, type TestDatabase } from './support/db';
import { runCli } from './support/cli';

const FILES = [
  'auction_categories.csv', 'global_types.csv', 'hunting_globals.csv', 'item_categories.csv', 'items.csv', 'landareas.csv',
  'monsters.csv', 'planets.csv', 'players.csv', 'professions.csv', 'weapon_damage.csv', 'weapons.csv',
];

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-generate-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function hashes(dir: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(dir).sort().map((f) => [
    f, crypto.createHash('sha256').update(fs.readFileSync(path.join(dir, f))).digest('hex'),
  ]));
}

/** Data lines of weapons.csv holding the search word (names and descriptions share a line). */
function searchWordLines(dir: string): number {
  return fs.readFileSync(path.join(dir, 'weapons.csv'), 'utf8').split('\n').slice(1)
    .filter((l) => l.toLowerCase().includes(SEARCH_WORD.toLowerCase())).length;
}

let first: GenerateReport;
beforeAll(async () => {
  first = await generateDataset(path.join(tmp, 'a'), { scale: 1, seed: 7 });
});

test('scale 1 is deterministic: the same seed writes the same bytes, another seed other data', async () => {
  await generateDataset(path.join(tmp, 'b'), { scale: 1, seed: 7 });
  await generateDataset(path.join(tmp, 'c'), { scale: 1, seed: 8 });
  const a = hashes(path.join(tmp, 'a'));
  expect(Object.keys(a)).toEqual(FILES);
  expect(hashes(path.join(tmp, 'b'))).toEqual(a);
  const c = hashes(path.join(tmp, 'c'));
  expect(c['weapons.csv']).not.toBe(a['weapons.csv']);
  expect(c['hunting_globals.csv']).not.toBe(a['hunting_globals.csv']);
});

test('row counts follow the scale', () => {
  const rows = Object.fromEntries(first.files.map((f) => [f.file, f.rows]));
  expect(rows).toMatchObject({
    'professions.csv': 14, 'item_categories.csv': 20, 'auction_categories.csv': 40, 'planets.csv': 8,
    'landareas.csv': 21, 'global_types.csv': 4, 'weapons.csv': 200, 'items.csv': 1_000, 'monsters.csv': 50,
    'players.csv': 2_000, 'hunting_globals.csv': 50_000,
  });
  expect(sizesFor(100)).toMatchObject({ weapons: 20_000, items: 100_000, monsters: 5_000, players: 200_000, globals: 5_000_000, landareas: 120 });
  // Files hold exactly the reported rows (header + rows, one line each).
  for (const f of first.files) {
    const lines = fs.readFileSync(path.join(tmp, 'a', f.file), 'utf8').split('\n');
    expect(lines.length - 2).toBe(f.rows);
  }
});

test(`the search word "${SEARCH_WORD}" is in exactly ten weapon names at any scale`, async () => {
  expect(searchWordLines(path.join(tmp, 'a'))).toBe(10);
  for (const scale of [0.1, 3]) {
    const dir = path.join(tmp, `scale-${scale}`);
    await generateDataset(dir, { scale, seed: 1 });
    expect(searchWordLines(dir)).toBe(10);
  }
});

test('svapi generate writes the dataset and reports it', async () => {
  const dir = path.join(tmp, 'cli');
  const result = await runCli(['generate', dir, '--scale', '0.1', '--seed', '3']);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/hunting_globals\.csv\s+5000 rows/);
  expect(result.stdout).toContain(`SearchWord "${SEARCH_WORD}" matches 10 weapons`);
  expect(fs.readdirSync(dir).sort()).toEqual(FILES);
  const bad = await runCli(['generate', dir, '--scale', '-1']);
  expect(bad.code).not.toBe(0);
});

describe('loaded into a fresh database', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  }, 120_000);
  afterAll(() => db?.destroy());

  test('the loader accepts it without problems, and every record arrives', async () => {
    const report = await loadDataset(db.knex, path.join(tmp, 'a'));
    const inserted = Object.fromEntries(report.files.map((f) => [f.file, f]));
    for (const f of first.files) expect(inserted[f.file]).toMatchObject({ rows: f.rows, inserted: f.rows });

    const count = async (sql: string) => Number((await db.knex.raw(sql)).rows[0].n);
    expect(await count('SELECT count(*) AS n FROM weapons')).toBe(200);
    expect(await count('SELECT count(*) AS n FROM items')).toBe(1_000);
    expect(await count('SELECT count(*) AS n FROM monsters')).toBe(50);
    expect(await count('SELECT count(*) AS n FROM players')).toBe(2_000);
    // No two generated globals are the same global (the loader would have kept only one).
    expect(await count('SELECT count(*) AS n FROM hunting_globals')).toBe(50_000);
    expect(await count(`SELECT count(*) AS n FROM weapons WHERE weapon_name ILIKE '%${SEARCH_WORD.toLowerCase()}%'`)).toBe(10);
    // The anchors the benchmark and examples use exist and have globals.
    expect(await count('SELECT count(*) AS n FROM hunting_globals WHERE monster_id = 1')).toBeGreaterThan(1_000);
    expect(await count('SELECT count(*) AS n FROM hunting_globals WHERE landarea_id = 101')).toBeGreaterThan(100);
    // Globals spread over 90 days, some at the same instant.
    const span = (await db.knex.raw(`SELECT extract(epoch FROM max(time_stamp) - min(time_stamp)) / 86400 AS days,
      count(DISTINCT time_stamp) AS instants FROM hunting_globals`)).rows[0];
    expect(Number(span.days)).toBeGreaterThan(89);
    expect(Number(span.days)).toBeLessThanOrEqual(90);
    expect(Number(span.instants)).toBeLessThan(50_000);
    expect(Number(span.instants)).toBeGreaterThan(45_000);
    // Loading the same dataset again changes nothing.
    const again = await loadDataset(db.knex, path.join(tmp, 'a'));
    expect(again.files.find((f) => f.file === 'hunting_globals.csv')).toMatchObject({ inserted: 0 });
  }, 120_000);
});
