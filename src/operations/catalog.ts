import type { Knex } from 'knex';
import type { Config } from '../config';
import { errors } from '../errors';
import { searchWeapons } from '../db/queries/weapons';
import { searchItems } from '../db/queries/items';
import { findMonster, searchMonsters } from '../db/queries/monsters';
import { newestGlobals } from '../db/queries/globals';
import { allAuctionCategories } from '../db/queries/auction';
import {
  ENDPOINTS,
  Operations,
  type AuctionService,
  type EndpointName,
  type HuntingService,
  type ItemService,
  type OperationName,
  type OperationParams,
  type OperationResults,
  type RecordName,
  type WeaponsService,
} from '../generated/records';
import type { ParamSpec } from './params';

export type { EndpointName, OperationName, RecordName };

export interface OperationContext {
  knex: Knex;
  config: Config;
}

/** The result of any operation: typed records. */
export type OperationResult = OperationResults[OperationName];

/**
 * An operation: its signature, record and endpoint come from the WSDL (src/generated/records.ts),
 * its summary, parameter rules and implementation from the definitions below.
 */
export interface Operation<N extends OperationName = OperationName> {
  name: N;
  endpoint: EndpointName;
  /** Parameters after DevID and DevKey, in wire order. */
  params: readonly ParamSpec[];
  record: RecordName;
  /** A list result (ArrayOf<Record>) or a single record. */
  list: boolean;
  summary: string;
  run(ctx: OperationContext, params: OperationParams[N]): Promise<OperationResults[N]>;
}

/** Checks beyond the WSDL's type, per parameter. */
type ParamRules<P> = { [K in keyof P]: P[K] extends number ? { min?: number } : { maxLength?: number } };

interface Definition<P, R> {
  summary: string;
  /** One entry per parameter of the WSDL: a parameter added there fails type-checking here. */
  rules: ParamRules<P>;
  run(ctx: OperationContext, params: P): Promise<R>;
}

/** The definitions of a wsdl:service's operations, typed by its generated interface. */
type Definitions<S> = { [Op in keyof S]: S[Op] extends (params: infer P) => Promise<infer R> ? Definition<P, R> : never };

const searchWord = { maxLength: 100 };
const clampGlobals = (ctx: OperationContext, n: number) => Math.min(n, ctx.config.SVAPI_MAX_GLOBALS);

const WEAPONS: Definitions<WeaponsService> = {
  GetWeapons: {
    summary: 'Weapons whose name contains SearchWord (empty: all), exact and prefix matches first.',
    rules: { SearchWord: searchWord },
    run: (ctx, p) => searchWeapons(ctx.knex, p.SearchWord, ctx.config.SVAPI_MAX_RESULTS),
  },
};

const ITEM: Definitions<ItemService> = {
  FindItems: {
    summary: 'Items whose name contains SearchWord (empty: all), exact and prefix matches first.',
    rules: { SearchWord: searchWord },
    run: (ctx, p) => searchItems(ctx.knex, p.SearchWord, ctx.config.SVAPI_MAX_RESULTS),
  },
};

const HUNTING: Definitions<HuntingService> = {
  GetMonsters: {
    summary: 'Monsters whose name contains SearchWord (empty: all), exact and prefix matches first.',
    rules: { SearchWord: searchWord },
    run: (ctx, p) => searchMonsters(ctx.knex, p.SearchWord, ctx.config.SVAPI_MAX_RESULTS),
  },
  GetMonster: {
    summary: 'One monster by its ID.',
    rules: { MonsterID: {} },
    run: async (ctx, p) => {
      const monster = await findMonster(ctx.knex, p.MonsterID);
      if (!monster) throw errors.notFound(`Monster ${p.MonsterID}`);
      return monster;
    },
  },
  GetMonsterGlobals: {
    summary: 'The newest NumberOfGlobals hunting globals on a monster.',
    rules: { MonsterID: {}, NumberOfGlobals: { min: 1 } },
    run: (ctx, p) => newestGlobals(ctx.knex, { monster_id: p.MonsterID }, clampGlobals(ctx, p.NumberOfGlobals)),
  },
  GetPlayerGlobals: {
    summary: 'The newest NumberOfGlobals hunting globals of a player or team.',
    rules: { playerID: {}, NumberOfGlobals: { min: 1 } },
    run: (ctx, p) => newestGlobals(ctx.knex, { player_id: p.playerID }, clampGlobals(ctx, p.NumberOfGlobals)),
  },
  GetLandareaGlobals: {
    summary: 'The newest hunting globals in a land area.',
    rules: { LandareaID: {} },
    run: (ctx, p) => newestGlobals(ctx.knex, { landarea_id: p.LandareaID }, ctx.config.SVAPI_LANDAREA_GLOBALS),
  },
};

const AUCTION: Definitions<AuctionService> = {
  GetAuctionCategories: {
    summary: 'All auction categories, by CategoryID.',
    rules: {},
    run: (ctx) => allAuctionCategories(ctx.knex, ctx.config.SVAPI_MAX_RESULTS),
  },
};

const DEFINITIONS: { [N in OperationName]: Definition<OperationParams[N], OperationResults[N]> } = { ...WEAPONS, ...ITEM, ...HUNTING, ...AUCTION };

const CREDENTIAL_COUNT = 2; // DevID and DevKey, first in every operation (scripts/generate-types.ts checks)

function operation<N extends OperationName>(name: N): Operation<N> {
  const meta = Operations.find((o) => o.name === name)!;
  const def: Definition<OperationParams[N], OperationResults[N]> = DEFINITIONS[name];
  const rules: Partial<Record<string, { min?: number; maxLength?: number }>> = def.rules;
  return {
    name,
    endpoint: ENDPOINTS.find((e) => e.path === meta.path)!.name,
    params: meta.params.slice(CREDENTIAL_COUNT).map((p) => ({ name: p.name, type: p.type, required: !('optional' in p), ...rules[p.name] })),
    record: meta.result.record,
    list: meta.result.list,
    summary: def.summary,
    run: def.run,
  };
}

/** The operations in WSDL order: the one table that bindings, WSDL checks and help pages share. */
export const OPERATIONS: readonly Operation[] = Operations.map((o) => operation(o.name));

export function operationsOf(endpoint: { name: EndpointName }): Operation[] {
  return OPERATIONS.filter((op) => op.endpoint === endpoint.name);
}

export function findOperation(endpoint: EndpointName, name: string): Operation | undefined {
  return OPERATIONS.find((op) => op.endpoint === endpoint && op.name === name);
}
