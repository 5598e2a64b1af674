import fs from 'node:fs';
import path from 'node:path';
import { writeMonsters, writePlayers } from './actors';
import { writeItems, writeWeapons } from './weapons-items';
import { createContext, type GenerateProgress } from './generate-context';
import { writeGlobals } from './globals';
import { writeReferenceTables } from './reference';
import { sizesFor, type Sizes } from './sizes';

export { SEARCH_WORD, SEARCH_WORD_MATCHES, sizesFor, type Sizes } from './sizes';
export type { GenerateProgress } from './generate-context';

interface GenerateOptions {
  /** 1 = 200 weapons, 1,000 items, 50 monsters, 2,000 players, 50,000 globals; any positive number. */
  scale: number;
  /** Same seed and scale, same files byte for byte. Default 1. */
  seed?: number;
  onProgress?: (e: GenerateProgress) => void;
}

export interface GenerateReport {
  dir: string;
  scale: number;
  seed: number;
  sizes: Sizes;
  files: { file: string; rows: number; bytes: number }[];
}

/**
 * Writes a synthetic dataset (CONTRACT §9: a folder of UTF-8 CSV files) into `dir`, which is
 * created if needed; existing dataset files there are overwritten. Rows are streamed to disk,
 * so memory stays small at any scale. Every reference resolves within the dataset, so
 * `svapi load <dir>` accepts it into an empty database.
 */
export async function generateDataset(dir: string, opts: GenerateOptions): Promise<GenerateReport> {
  const seed = opts.seed ?? 1;
  if (!Number.isSafeInteger(seed)) throw new RangeError('seed must be an integer');
  const sizes = sizesFor(opts.scale);
  await fs.promises.mkdir(dir, { recursive: true });
  const ctx = createContext(dir, sizes, seed, opts.onProgress);
  await writeReferenceTables(ctx);
  await writeWeapons(ctx);
  await writeItems(ctx);
  await writeMonsters(ctx);
  const players = await writePlayers(ctx);
  await writeGlobals(ctx, players);

  const files: GenerateReport['files'] = [];
  for (const [file, rows] of ctx.written) {
    const { size } = await fs.promises.stat(path.join(dir, file));
    files.push({ file, rows, bytes: size });
  }
  return { dir, scale: opts.scale, seed, sizes, files };
}
