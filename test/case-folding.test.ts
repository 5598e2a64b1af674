// SearchWord matches by Unicode simple case folding (CONTRACT §5: CaseFolding.txt status C and S,
// character for character, of word and name), on every search operation and on both databases:
// İ matches only İ, ß and ẞ match each other but not "ss", Σ σ ς match each other, Ǆ ǅ ǆ too.

import fs from 'node:fs';
import path from 'node:path';
import { startService, type TestService } from './support/service';
import { send } from './support/bindings';
import { parseXml } from './support/xml-tree';

/** CaseFolding.txt's C and S lines (Unicode 15.0, Debian's copy): code point -> folded code point. */
const FOLDING: [number, number][] = fs.readFileSync(path.join(__dirname, 'fixtures/unicode/CaseFolding-15.0.0-CS.txt'), 'utf8')
  .split('\n').filter((l) => /^[0-9A-F]+; [CS];/.test(l))
  .map((l) => { const [from, , to] = l.split('; '); return [parseInt(from, 16), parseInt(to, 16)]; });

// Names that tell the folds apart; the same ones in weapons, items and monsters.
const NAMES = [
  'İstanbul Edge', 'istanbul Edge', 'Kilij Edge', // İ folds to nothing else; i is not İ
  'Straße Maul', 'GROẞ Maul', 'STRASSE Maul', // ß = ẞ, neither is "ss"
  'ΟΔΥΣΣΕΥΣ', 'οδυσσευς', 'Οδυσσεύς Prime', // Σ = σ = ς
  'ǄEMAL Pike', 'ǅemal Pike', 'ǆemal Pike', 'DZemal Pike', // Ǆ = ǅ = ǆ, not the two letters DZ
];

const OPERATIONS = [
  { path: '/api/weapons.asmx', op: 'GetWeapons', table: 'weapons', id: 'weapon_id', name: 'weapon_name', field: 'WeaponName' },
  { path: '/api/item.asmx', op: 'FindItems', table: 'items', id: 'item_id', name: 'item_name', field: 'ItemName' },
  { path: '/API/hunting.asmx', op: 'GetMonsters', table: 'monsters', id: 'monster_id', name: 'monster_name', field: 'MonsterName' },
] as const;

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
  const knex = svc.db.knex;
  for (const { table, id, name } of OPERATIONS) {
    // Copies of a sample row under the names above (the generated folded column is the database's).
    const { [`${name}_folded`]: _folded, ...row } = await knex(table).orderBy(id).first();
    const top = (await knex(table).max(id, { as: 'top' }).first())!.top as number;
    await knex(table).insert(NAMES.map((n, i) => ({ ...row, [id]: top + 1 + i, [name]: n })));
  }
});
afterAll(() => svc.close());

async function search(c: (typeof OPERATIONS)[number], word: string): Promise<string[]> {
  const q = new URLSearchParams({ DevID: String(svc.key.devId), DevKey: svc.key.devKey, SearchWord: word });
  const answer = await send(`${svc.url}${c.path}/${c.op}?${q}`);
  expect(answer.status).toBe(200);
  return parseXml(answer.body).root.children.map((r) => r.children.find((f) => f.local === c.field)!.text);
}

test('svapi_casefold maps every C and S line of CaseFolding.txt, and nothing else of the letters tried', async () => {
  const fold = async (text: string) => (await svc.db.knex.raw('SELECT svapi_casefold(?) AS f', [text])).rows[0].f as string;
  const from = FOLDING.map(([f]) => String.fromCodePoint(f)).join('');
  const to = FOLDING.map(([, t]) => String.fromCodePoint(t)).join('');
  expect([...await fold(from)].map((c) => c.codePointAt(0)!.toString(16))).toEqual([...to].map((c) => c.codePointAt(0)!.toString(16)));
  // Already folded text stays (every target, then letters with no C or S mapping), ASCII or not.
  expect(await fold(to)).toBe(to);
  expect(await fold('İıßŉǰΐſẞﬀ')).toBe('İıßŉǰΐsßﬀ');
  expect(await fold('Hello, World 123 %_\\')).toBe('hello, world 123 %_\\');
});

describe.each(OPERATIONS)('$op', (c) => {
  const ours = async (word: string) => (await search(c, word)).filter((n) => NAMES.includes(n)).sort();

  test('İ matches only names with İ; i does not match İ', async () => {
    expect(await ours('İ')).toEqual(['İstanbul Edge']);
    expect(await ours('istanbul')).toEqual(['istanbul Edge']);
    expect(await ours('KILIJ')).toEqual(['Kilij Edge']);
  });

  test('ß and ẞ match each other, never "ss"', async () => {
    for (const word of ['ß', 'ẞ', 'straße', 'STRAẞE']) expect({ word, found: await ours(word) }).toEqual({ word, found: word.length === 1 ? ['GROẞ Maul', 'Straße Maul'] : ['Straße Maul'] });
    expect(await ours('strasse')).toEqual(['STRASSE Maul']);
  });

  test('Σ, σ and ς match each other', async () => {
    for (const word of ['Σ', 'σ', 'ς', 'οδυσσευσ', 'ΟΔΥΣΣΕΥς']) {
      expect({ word, found: await ours(word) }).toEqual({ word, found: word.length === 1 ? ['Οδυσσεύς Prime', 'ΟΔΥΣΣΕΥΣ', 'οδυσσευς'].sort() : ['ΟΔΥΣΣΕΥΣ', 'οδυσσευς'].sort() });
    }
  });

  test('Ǆ, ǅ and ǆ match each other, not DZ', async () => {
    for (const word of ['Ǆ', 'ǅ', 'ǆEMAL']) expect({ word, found: await ours(word) }).toEqual({ word, found: ['ǄEMAL Pike', 'ǅemal Pike', 'ǆemal Pike'] });
    expect(await ours('dz')).toEqual(['DZemal Pike']);
  });

  test('an exact match under the fold comes first, then the names it starts, by folded name', async () => {
    expect(await search(c, 'ΟΔΥΣΣΕΥς')).toEqual(['ΟΔΥΣΣΕΥΣ', 'οδυσσευς']);
    const dz = await search(c, 'ǅemal pike');
    expect(dz).toEqual(['ǄEMAL Pike', 'ǅemal Pike', 'ǆemal Pike']);
  });
});

test('a name changed by hand is searched by its new fold (the column is generated)', async () => {
  const c = OPERATIONS[2];
  await svc.db.knex(c.table).where({ [c.name]: 'Kilij Edge' }).update({ [c.name]: 'KİLİJ Edge' });
  expect((await svc.db.knex(c.table).where({ [c.name]: 'KİLİJ Edge' }).first(`${c.name}_folded`))[`${c.name}_folded`]).toBe('kİlİj edge');
});
