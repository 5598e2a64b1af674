import type { Knex } from 'knex';
import type { AuctionCategory } from '../../generated/records';
import { named } from './statements';

export async function allAuctionCategories(knex: Knex, limit: number): Promise<AuctionCategory[]> {
  const rows = await knex('auction_categories').orderBy('category_id').limit(limit).options(named(knex, 'auction_categories'));
  return rows.map((r) => ({ CategoryName: r.category_name, CategoryID: r.category_id }));
}
