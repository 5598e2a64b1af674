import type { Knex } from 'knex';
import type { Monster } from '../../generated/records';
import { applyNameSearch } from './search';
import { named } from './statements';
import { description } from './values';

const toMonster = (r: { monster_id: number; monster_name: string; description: string | null; item_picture_url: string | null }): Monster => ({
  MonsterName: r.monster_name,
  MonsterID: r.monster_id,
  Description: description(r.description, r.item_picture_url),
});

export async function searchMonsters(knex: Knex, word: string, limit: number): Promise<Monster[]> {
  const rows = await applyNameSearch(knex('monsters').select('*'), 'monster_name', 'monster_id', word, limit, named(knex, 'monsters_by_name'));
  return rows.map(toMonster);
}

export async function findMonster(knex: Knex, monsterId: number): Promise<Monster | undefined> {
  const row = await knex('monsters').where({ monster_id: monsterId }).first().options(named(knex, 'monster_by_id'));
  return row ? toMonster(row) : undefined;
}
