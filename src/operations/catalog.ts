import type { Knex } from 'knex';
import type { Config } from '../config';
import { errors } from '../errors';
import { searchWeapons } from '../db/queries/weapons';
import { searchItems } from '../db/queries/items';
import { findMonster, searchMonsters } from '../db/queries/monsters';
import { newestGlobals } from '../db/queries/globals';
import { allAuctionCategories } from '../db/queries/auction';
import type { ParamSpec, Params } from './params';

export type EndpointName = 'weapons' | 'item' | 'hunting' | 'auction';
export type RecordName = 'Weapon' | 'Item' | 'Monster' | 'HuntingGlobal' | 'AuctionCategory';

export interface OperationContext {
  knex: Knex;
  config: Config;
}

export interface Operation {
  name: string;
  endpoint: EndpointName;
  /** Parameters after DevID and DevKey, in wire order. */
  params: readonly ParamSpec[];
  record: RecordName;
  /** A list result (ArrayOf<Record>) or a single record. */
  list: boolean;
  summary: string;
  run(ctx: OperationContext, params: Params): Promise<unknown>;
}

const searchWord: ParamSpec = { name: 'SearchWord', type: 'string', required: false, maxLength: 100 };
const int = (name: string, min?: number): ParamSpec => ({ name, type: 'int', required: true, min });
const numberOfGlobals = int('NumberOfGlobals', 1);
const clampGlobals = (ctx: OperationContext, n: number) => Math.min(n, ctx.config.SVAPI_MAX_GLOBALS);

/** The eight operations: the one table that bindings, WSDL checks and help pages share. */
export const OPERATIONS: readonly Operation[] = [
  {
    name: 'GetWeapons', endpoint: 'weapons', params: [searchWord], record: 'Weapon', list: true,
    summary: 'Weapons whose name contains SearchWord (empty: all), exact and prefix matches first.',
    run: (ctx, p) => searchWeapons(ctx.knex, p.SearchWord as string, ctx.config.SVAPI_MAX_RESULTS),
  },
  {
    name: 'FindItems', endpoint: 'item', params: [searchWord], record: 'Item', list: true,
    summary: 'Items whose name contains SearchWord (empty: all), exact and prefix matches first.',
    run: (ctx, p) => searchItems(ctx.knex, p.SearchWord as string, ctx.config.SVAPI_MAX_RESULTS),
  },
  {
    name: 'GetMonsters', endpoint: 'hunting', params: [searchWord], record: 'Monster', list: true,
    summary: 'Monsters whose name contains SearchWord (empty: all), exact and prefix matches first.',
    run: (ctx, p) => searchMonsters(ctx.knex, p.SearchWord as string, ctx.config.SVAPI_MAX_RESULTS),
  },
  {
    name: 'GetMonster', endpoint: 'hunting', params: [int('MonsterID')], record: 'Monster', list: false,
    summary: 'One monster by its ID.',
    run: async (ctx, p) => {
      const monster = await findMonster(ctx.knex, p.MonsterID as number);
      if (!monster) throw errors.notFound(`Monster ${p.MonsterID}`);
      return monster;
    },
  },
  {
    name: 'GetMonsterGlobals', endpoint: 'hunting', params: [int('MonsterID'), numberOfGlobals], record: 'HuntingGlobal', list: true,
    summary: 'The newest NumberOfGlobals hunting globals on a monster.',
    run: (ctx, p) => newestGlobals(ctx.knex, { monster_id: p.MonsterID as number }, clampGlobals(ctx, p.NumberOfGlobals as number)),
  },
  {
    name: 'GetPlayerGlobals', endpoint: 'hunting', params: [int('playerID'), numberOfGlobals], record: 'HuntingGlobal', list: true,
    summary: 'The newest NumberOfGlobals hunting globals of a player or team.',
    run: (ctx, p) => newestGlobals(ctx.knex, { player_id: p.playerID as number }, clampGlobals(ctx, p.NumberOfGlobals as number)),
  },
  {
    name: 'GetLandareaGlobals', endpoint: 'hunting', params: [int('LandareaID')], record: 'HuntingGlobal', list: true,
    summary: 'The newest hunting globals in a land area.',
    run: (ctx, p) => newestGlobals(ctx.knex, { landarea_id: p.LandareaID as number }, ctx.config.SVAPI_LANDAREA_GLOBALS),
  },
  {
    name: 'GetAuctionCategories', endpoint: 'auction', params: [], record: 'AuctionCategory', list: true,
    summary: 'All auction categories, by CategoryID.',
    run: (ctx) => allAuctionCategories(ctx.knex, ctx.config.SVAPI_MAX_RESULTS),
  },
];

export function operationsOf(endpoint: { name: EndpointName }): Operation[] {
  return OPERATIONS.filter((op) => op.endpoint === endpoint.name);
}

export function findOperation(endpoint: EndpointName, name: string): Operation | undefined {
  return OPERATIONS.find((op) => op.endpoint === endpoint && op.name === name);
}
