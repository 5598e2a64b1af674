// The bench's Node floor (bench/refs/node-floor.ts), given the statement the service sends for
// GetMonsterGlobals, answers with the service's bytes: the bench compares the service with it.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { createKey } from '../src/auth/keys';
import { onRead } from '../src/db/queries/statements';
import { ROOT } from './support/cli';
import { freshDatabase, type TestDatabase } from './support/db';
import { serveOver, type ServedApp } from './support/serve';

let db: TestDatabase;
let svc: ServedApp;
let floor: ChildProcess | undefined;
let dir: string;
beforeAll(async () => {
  db = await freshDatabase({ seed: true });
  svc = await serveOver(db, { SVAPI_CACHE_MB: '0' });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-floor-'));
});
afterAll(async () => {
  floor?.kill('SIGTERM');
  await svc?.close();
  await db?.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('for every monster of the sample, the floor answers GetMonsterGlobals with the service\'s bytes', async () => {
  const key = await createKey(db.knex, 'floor');
  const ask = (origin: string, monster: number) => fetch(`${origin}/API/hunting.asmx/GetMonsterGlobals?DevID=${key.devId}&DevKey=${encodeURIComponent(key.devKey)}&MonsterID=${monster}&NumberOfGlobals=100`);
  // The statement the service sends, as its read module reports it (its text, and its name on a Postgres server).
  const sent: { text: string; name: string | null }[] = [];
  onRead(svc.knex, (s) => {
    if (s.text.includes('hunting_globals')) sent.push({ text: s.text, name: s.name ?? null });
  });
  const expected = new Map<number, Buffer>();
  const monsters = (await db.knex('monsters').select('monster_id').orderBy('monster_id')).map((r: { monster_id: number }) => r.monster_id);
  for (const m of monsters) {
    const res = await ask(svc.url, m);
    expect(res.status).toBe(200);
    expected.set(m, Buffer.from(await res.arrayBuffer()));
  }
  expect(sent.length).toBe(monsters.length);
  const statementFile = path.join(dir, 'statement.json');
  fs.writeFileSync(statementFile, JSON.stringify(sent[0]));

  floor = spawn(process.execPath, ['bin/run-ts.js', 'bench/refs/node-floor.ts', statementFile, '1', '2'], {
    cwd: ROOT, env: { ...process.env, DATABASE_URL: db.url }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: floor!.stdout! }).once('line', (line) => resolve(new URL(JSON.parse(line).url).origin));
    floor!.once('exit', (code) => reject(new Error(`node-floor.ts exited with ${code}`)));
  });
  let nonEmpty = 0;
  for (const m of monsters) {
    const res = await ask(origin, m);
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.toString()).toBe(expected.get(m)!.toString());
    if (body.includes('<HuntingGlobal>')) nonEmpty++;
  }
  expect(nonEmpty).toBeGreaterThan(10); // the sample's monsters have globals: records were compared, not only empty lists
}, 60_000);
