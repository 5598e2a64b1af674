import type { Knex } from 'knex';
import type { AuctionCategory } from '../../generated/records';
import { readRows, type Statement } from './statements';

const ALL: Statement = { name: 'auction_categories', text: 'SELECT category_name, category_id FROM auction_categories ORDER BY category_id LIMIT $1' };

export async function allAuctionCategories(knex: Knex, limit: number): Promise<AuctionCategory[]> {
  const rows = await readRows(knex, ALL, [limit]);
  return rows.map((r) => ({ CategoryName: r[0] as string, CategoryID: r[1] as number }));
}
