/** A hunting_globals row as the database holds it, read independently of the service's queries. */
export interface GlobalRow { monster_id: number; time_stamp: Date | string; global_type_id: number; global_value: number; player_id: number; landarea_id: number }

/** The fields of a globals row that a client's record is compared with, the time as epoch milliseconds. */
export const comparableGlobalRow = (r: GlobalRow) => ({
  monster_id: r.monster_id,
  time: new Date(r.time_stamp).getTime(),
  global_type_id: r.global_type_id,
  global_value: r.global_value,
  player_id: r.player_id,
  landarea_id: r.landarea_id,
});
