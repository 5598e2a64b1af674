import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processAlive } from '../../src/db/embedded';
import { until } from './wait';

/**
 * One lock per jest run (its workers are the children of one process): a test file that needs the
 * machine's cores to itself, to measure behaviour under load (no refusal below capacity) or to
 * take cores away (busy loops, busy processes), holds it, so that no two such files run at once.
 * Beside the overload test's busy loop, one core short, 64 uncached connections once saw a 503.
 */
const LOCK = path.join(os.tmpdir(), `svapi-test-machine-${process.ppid}`);
const OWNER = path.join(LOCK, 'pid');

const owner = () => {
  try {
    return Number(fs.readFileSync(OWNER, 'utf8'));
  } catch {
    return 0;
  }
};

/** Waits until this process holds the machine; returns what lets it go. */
export async function holdMachine(waitMs = 600_000): Promise<() => void> {
  const take = () => {
    try {
      fs.mkdirSync(LOCK);
    } catch {
      // Held by a process still running (or being taken just now), or left by one that died.
      const held = owner();
      const stale = held > 0 ? !processAlive(held) : Date.now() - fs.statSync(LOCK).mtimeMs > 5_000;
      if (stale) fs.rmSync(LOCK, { recursive: true, force: true });
      return false;
    }
    fs.writeFileSync(OWNER, String(process.pid));
    return true;
  };
  await until('the machine, held by another test file', take, waitMs);
  const release = () => {
    process.off('exit', release);
    if (owner() === process.pid) fs.rmSync(LOCK, { recursive: true, force: true });
  };
  process.once('exit', release);
  return release;
}
