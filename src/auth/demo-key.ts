import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { activeKeyHash, createKey, keyMatches } from './keys';
import { MEMORY } from '../db/embedded';

export interface DemoCredential {
  devId: number;
  devKey: string;
}

const FILE = 'demo-credential.json';
const DEMO_KEY_NAME = 'demo (embedded start)';

/**
 * The credential an embedded start prints. It is kept in the data folder, readable by its owner
 * only (like the database files beside it), and reused while it still works: restarts do not add
 * keys, and a DevKey pasted into a client keeps working. Once revoked (or with a new folder) a
 * fresh one is made and kept instead.
 */
export async function demoCredential(admin: Knex, dataDir: string): Promise<DemoCredential> {
  const file = dataDir === MEMORY ? undefined : path.join(path.resolve(dataDir), FILE);
  const kept = file ? readKept(file) : undefined;
  if (kept && keyMatches(kept.devKey, await activeKeyHash(admin, kept.devId))) return kept;
  const fresh = await createKey(admin, DEMO_KEY_NAME);
  if (file) keep(file, fresh);
  return fresh;
}

function readKept(file: string): DemoCredential | undefined {
  try {
    const { DevID, DevKey } = JSON.parse(fs.readFileSync(file, 'utf8'));
    return Number.isInteger(DevID) && typeof DevKey === 'string' ? { devId: DevID, devKey: DevKey } : undefined;
  } catch {
    return undefined;
  }
}

function keep(file: string, { devId, devKey }: DemoCredential): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ DevID: devId, DevKey: devKey })}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
