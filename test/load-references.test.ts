import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createKnex } from '../src/db/connect';
import { loadDataset } from '../src/load';
import { freshDatabase, type TestDatabase } from './support/db';
import { until } from './support/wait';

// The globals' foreign keys hold however the loader checks them: in bulk (a session that may set
// session_replication_role) or row by row (one that may not). Both need a second session, so a
// server: the embedded database is one session.
const onServer = process.env.DATABASE_URL ? test : test.skip;

const GLOBALS_HEADER = 'MonsterID,TimeStamp,GlobalTypeID,GlobalValue,PlayerID,LandareaID';
const BASE: Record<string, string> = {
  'planets.csv': 'PlanetID,PlanetName,Description\n1,Calypso,\n',
  'monsters.csv': 'MonsterID,MonsterName,Description,ItemPictureURL\n100,Atrox,,\n101,Daikiba,,\n',
  'players.csv': 'PlayerID,PlayerName,IsTeam\n500,Alice,0\n501,Bob,0\n',
  'global_types.csv': 'GlobalTypeID,GlobalTypeName\n1,Kill\n',
  'landareas.csv': 'AreaID,AreaName,PlanetID\n200,Eastern Land,1\n',
  'hunting_globals.csv': `${GLOBALS_HEADER}\n100,2026-11-21T18:04:05Z,1,150,500,200\n`,
};

let db: TestDatabase;
const folders: string[] = [];
const extra: Knex[] = [];
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  for (const k of extra) await k.destroy();
  await db?.destroy();
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

function dataset(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-load-refs-'));
  folders.push(dir);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

function connect(url: string): Knex {
  const k = createKnex(url, 'admin', { ...db.config, SVAPI_DB_POOL_MAX: 1 }, db.embedded);
  extra.push(k);
  return k;
}

const globalsOf = async (monster: number) => Number((await db.knex('hunting_globals').where({ monster_id: monster }).count({ n: '*' }))[0].n);

onServer('a monster removed by another session while its globals load fails the load, which adds nothing', async () => {
  await loadDataset(db.knex, dataset(BASE));
  const other = connect(db.url);
  const remover = await other.transaction();
  try {
    // Uncommitted: the load still sees monster 101 while checking the file.
    await remover.raw('DELETE FROM monsters WHERE monster_id = 101');
    const load = loadDataset(db.knex, dataset({
      'hunting_globals.csv': `${GLOBALS_HEADER}\n101,2026-12-01T00:00:00Z,1,5,501,200\n100,2026-12-01T00:00:00Z,1,6,501,200\n`,
    })).then(() => 'loaded', (e: Error) => e.message);
    // The load waits for the removal's row lock before it may write globals of monster 101.
    await until('the load waits for a lock', async () => (await db.knex.raw(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    )).rows[0].n > 0, 15_000);
    await remover.commit();
    expect(await load).not.toBe('loaded');
  } finally {
    if (!remover.isCompleted()) await remover.rollback();
  }
  expect(await globalsOf(101)).toBe(0);
  expect(await globalsOf(100)).toBe(1);
});

onServer('a role that may not switch triggers off loads the same, its foreign keys checked row by row', async () => {
  const role = `svapi_t_loader_${process.pid}`;
  await db.knex.raw(`DROP ROLE IF EXISTS ${role}`);
  await db.knex.raw(`CREATE ROLE ${role} LOGIN NOSUPERUSER`);
  try {
    await db.knex.raw(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
    await db.knex.raw(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    const url = new URL(db.url);
    url.username = role;
    const limited = connect(url.toString());
    await expect(limited.raw('SET session_replication_role = replica')).rejects.toMatchObject({ code: '42501' });

    await db.knex.raw('TRUNCATE hunting_globals, landareas, global_types, players, monsters, planets CASCADE');
    const report = await loadDataset(limited, dataset({
      ...BASE,
      'hunting_globals.csv': `${GLOBALS_HEADER}\n100,2026-11-21T18:04:05Z,1,150,500,200\n101,2026-11-21T18:04:05Z,1,150,501,200\n100,2026-11-21T18:04:05Z,1,150,500,200\n`,
    }));
    expect(report.files.find((f) => f.file === 'hunting_globals.csv'))
      .toEqual({ file: 'hunting_globals.csv', rows: 3, inserted: 2, updated: 0, unchanged: 1, deleted: 0 });
    // The triggers are on: a row that refers to no monster is refused by the database itself.
    await expect(limited.raw(`INSERT INTO hunting_globals (monster_id, time_stamp, global_type_id, global_value, player_id, landarea_id)
      VALUES (999, now(), 1, 1, 500, 200)`)).rejects.toMatchObject({ code: '23503' });
    await limited.destroy();
    extra.splice(extra.indexOf(limited), 1);
  } finally {
    await db.knex.raw(`DROP OWNED BY ${role}`);
    await db.knex.raw(`DROP ROLE ${role}`);
  }
});
