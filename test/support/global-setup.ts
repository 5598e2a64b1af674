// Jest global setup: on the embedded database, the template copies every test file's database
// starts from (test/support/db-templates.ts), built when missing.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createKnex } from '../../src/db/connect';
import { migrateLatest } from '../../src/db/migrate';
import { seed } from '../../seeds/sample';
import { spawnEmbedded } from './db';
import { TEMPLATES_ENV, templatesComplete, templatesDir, type Template } from './db-templates';

export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) return;
  const dir = templatesDir();
  if (!templatesComplete(dir)) await buildTemplates(dir);
  process.env[TEMPLATES_ENV] = dir;
}

async function buildTemplates(dir: string): Promise<void> {
  // Built beside the final folder and renamed into place: a run in parallel sees all or nothing.
  const building = fs.mkdtempSync(`${dir}.building-`);
  const server = await spawnEmbedded();
  const knex = createKnex(server.url, 'admin', loadConfig({ DATABASE_URL: server.url }), true);
  try {
    const dump = (template: Template) => server.dump(path.join(building, `${template}.tar`));
    await dump('empty');
    await migrateLatest(knex);
    await dump('migrated');
    await seed(knex);
    await dump('seeded');
  } finally {
    await knex.destroy();
    await server.stop();
  }
  try {
    fs.renameSync(building, dir);
  } catch {
    fs.rmSync(building, { recursive: true, force: true }); // another run finished first
  }
}
