import type { Knex } from 'knex';
import type { Item } from '../../generated/records';
import { applyNameSearch } from './search';
import { named } from './statements';
import { description } from './values';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a joined database row
type Row = Record<string, any>;

export async function searchItems(knex: Knex, word: string, limit: number): Promise<Item[]> {
  const query = knex('items as i')
    .join('item_categories as c', 'c.category_id', 'i.category_id')
    .select('i.*', 'c.category_name');
  const rows = await applyNameSearch(query, 'i.item_name', 'i.item_id', word, limit, named(knex, 'items_by_name'));
  return rows.map((r: Row) => ({
    ItemName: r.item_name,
    ItemID: r.item_id,
    Description: description(r.description, r.item_picture_url),
    TTValue: r.tt_value,
    Category: { CategoryName: r.category_name, CategoryID: r.category_id },
  }));
}
