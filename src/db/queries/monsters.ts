import type { Knex } from 'knex';
import type { Monster } from '../../generated/records';
import { nameSearch, searchRows } from './search';
import { readRows, type Statement } from './statements';
import { description } from './values';

const COLUMNS = 'SELECT monster_name, monster_id, description, item_picture_url FROM monsters';
export const MONSTER_SEARCH = nameSearch('monsters_by_name', COLUMNS, 'monster_name', 'monster_id');
const BY_ID: Statement = { name: 'monster_by_id', text: `${COLUMNS} WHERE monster_id = $1 LIMIT 1` };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a row's columns, in the select list's order
const toMonster = (r: any[]): Monster => ({
  MonsterName: r[0],
  MonsterID: r[1],
  Description: description(r[2], r[3]),
});

export async function searchMonsters(knex: Knex, word: string, limit: number): Promise<Monster[]> {
  return (await searchRows(knex, MONSTER_SEARCH, word, limit)).map(toMonster);
}

export async function findMonster(knex: Knex, monsterId: number): Promise<Monster | undefined> {
  const [row] = await readRows(knex, BY_ID, [monsterId]);
  return row ? toMonster(row) : undefined;
}
