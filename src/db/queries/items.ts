import type { Knex } from 'knex';
import type { Item } from '../../generated/records';
import { nameSearch, searchRows } from './search';
import { description } from './values';

export const ITEM_SEARCH = nameSearch('items_by_name', `SELECT i.item_name, i.item_id, i.description, i.item_picture_url, i.tt_value, c.category_name, i.category_id
FROM items AS i JOIN item_categories AS c ON c.category_id = i.category_id`, 'i.item_name', 'i.item_id');

export async function searchItems(knex: Knex, word: string, limit: number): Promise<Item[]> {
  return (await searchRows(knex, ITEM_SEARCH, word, limit)).map(toItem);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a row's columns, in the select list's order
const toItem = (r: any[]): Item => ({
  ItemName: r[0],
  ItemID: r[1],
  Description: description(r[2], r[3]),
  TTValue: r[4],
  Category: { CategoryName: r[5], CategoryID: r[6] },
});
