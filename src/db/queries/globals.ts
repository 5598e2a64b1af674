import type { Knex } from 'knex';
import type { HuntingGlobal } from '../../generated/records';
import { named } from './statements';
import { description, utcText, xsdDateTime } from './values';

type Filter = { monster_id: number } | { player_id: number } | { landarea_id: number };

/** The newest `limit` globals matching `filter`, in CONTRACT §5 order. */
export async function newestGlobals(knex: Knex, filter: Filter, limit: number): Promise<HuntingGlobal[]> {
  const [[column, value]] = Object.entries(filter);
  const rows = await knex
    .with('g', (q) =>
      q.from('hunting_globals')
        .where(column, value)
        .orderBy([
          { column: 'time_stamp', order: 'desc' },
          { column: 'global_value', order: 'desc' },
          'player_id', 'monster_id', 'global_type_id',
        ])
        .limit(limit))
    .from('g')
    // At most `limit` globals: each one's monster and player by primary key. LIMIT 1 keeps the
    // planner from turning these into hash joins that read the whole table (CONTRACT §5 reads must
    // stay index-bound as the data grows; see npm run explain).
    .joinRaw('CROSS JOIN LATERAL (SELECT * FROM monsters WHERE monsters.monster_id = g.monster_id LIMIT 1) AS m')
    .join('global_types as t', 't.global_type_id', 'g.global_type_id')
    .joinRaw('CROSS JOIN LATERAL (SELECT * FROM players WHERE players.player_id = g.player_id LIMIT 1) AS p')
    .join('landareas as a', 'a.area_id', 'g.landarea_id')
    .leftJoin('planets as pl', 'pl.planet_id', 'a.planet_id')
    .select(
      'g.monster_id', 'g.global_type_id', 'g.global_value', 'g.player_id', 'g.landarea_id',
      knex.raw(`${utcText('g.time_stamp')} AS time_stamp`),
      'm.monster_name', 'm.description as monster_description', 'm.item_picture_url as monster_picture',
      't.global_type_name', 'p.player_name', 'p.is_team', 'a.area_name', 'a.planet_id',
      'pl.planet_name', 'pl.description as planet_description',
    )
    .orderBy([
      { column: 'g.time_stamp', order: 'desc' },
      { column: 'g.global_value', order: 'desc' },
      'g.player_id', 'g.monster_id', 'g.global_type_id',
    ])
    .options(named(knex, `globals_by_${column}`));
  return rows.map((r) => ({
    Monster: {
      MonsterName: r.monster_name,
      MonsterID: r.monster_id,
      Description: description(r.monster_description, r.monster_picture),
    },
    TimeStamp: xsdDateTime(r.time_stamp),
    GlobalType: { GlobalTypeName: r.global_type_name, GlobalTypeID: r.global_type_id },
    GlobalValue: r.global_value,
    Player: { PlayerName: r.player_name, PlayerID: r.player_id, IsTeam: r.is_team },
    Landarea: {
      AreaName: r.area_name,
      AreaID: r.landarea_id,
      Planet: r.planet_id === null
        ? null
        : { PlanetName: r.planet_name, PlanetID: r.planet_id, Description: r.planet_description || null },
    },
  }));
}
