import type { Knex } from 'knex';
import type { HuntingGlobal } from '../../generated/records';
import { readRows, type Statement } from './statements';
import { description, utcText, xsdDateTime } from './values';

type Column = 'monster_id' | 'player_id' | 'landarea_id';
type Filter = { [C in Column]: { [K in C]: number } }[Column];

const ORDER = (g: string) => `${g}time_stamp DESC, ${g}global_value DESC, ${g}player_id, ${g}monster_id, ${g}global_type_id`;

/**
 * The newest $2 globals whose `column` is $1, in CONTRACT §5 order, each with its names. At most
 * $2 globals: each one's monster and player by primary key. LIMIT 1 keeps the planner from
 * turning these into hash joins that read the whole table (CONTRACT §5 reads must stay
 * index-bound as the data grows; see npm run explain).
 */
const newest = (column: Column): Statement => ({
  name: `globals_by_${column}`,
  text: `WITH g AS (SELECT * FROM hunting_globals WHERE ${column} = $1 ORDER BY ${ORDER('')} LIMIT $2)
SELECT g.monster_id, g.global_type_id, g.global_value, g.player_id, g.landarea_id,
  ${utcText('g.time_stamp')},
  m.monster_name, m.description, m.item_picture_url,
  t.global_type_name, p.player_name, p.is_team, a.area_name, a.planet_id, pl.planet_name, pl.description
FROM g
  CROSS JOIN LATERAL (SELECT * FROM monsters WHERE monsters.monster_id = g.monster_id LIMIT 1) AS m
  JOIN global_types AS t ON t.global_type_id = g.global_type_id
  CROSS JOIN LATERAL (SELECT * FROM players WHERE players.player_id = g.player_id LIMIT 1) AS p
  JOIN landareas AS a ON a.area_id = g.landarea_id
  LEFT JOIN planets AS pl ON pl.planet_id = a.planet_id
ORDER BY ${ORDER('g.')}`,
});

/** The statement newestGlobals runs for each filter column (exported for the index test, which EXPLAINs them). */
export const GLOBALS_STATEMENTS: Record<Column, Statement> = {
  monster_id: newest('monster_id'),
  player_id: newest('player_id'),
  landarea_id: newest('landarea_id'),
};

/** The newest `limit` globals matching `filter`, in CONTRACT §5 order. */
export async function newestGlobals(knex: Knex, filter: Filter, limit: number): Promise<HuntingGlobal[]> {
  const [[column, value]] = Object.entries(filter) as [Column, number][];
  const rows = await readRows(knex, GLOBALS_STATEMENTS[column], [value, limit]);
  return rows.map(toGlobal);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a row's columns, in the select list's order
function toGlobal(r: any[]): HuntingGlobal {
  return {
    Monster: { MonsterName: r[6], MonsterID: r[0], Description: description(r[7], r[8]) },
    TimeStamp: xsdDateTime(r[5]),
    GlobalType: { GlobalTypeName: r[9], GlobalTypeID: r[1] },
    GlobalValue: r[2],
    Player: { PlayerName: r[10], PlayerID: r[3], IsTeam: r[11] },
    Landarea: {
      AreaName: r[12],
      AreaID: r[4],
      Planet: r[13] === null ? null : { PlanetName: r[14], PlanetID: r[13], Description: r[15] || null },
    },
  };
}
