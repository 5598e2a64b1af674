import type { Knex } from 'knex';
import type { AuctionCategory } from '../../generated/records';

export async function allAuctionCategories(knex: Knex, limit: number): Promise<AuctionCategory[]> {
  const rows = await knex('auction_categories').orderBy('category_id').limit(limit);
  return rows.map((r) => ({ CategoryName: r.category_name, CategoryID: r.category_id }));
}
