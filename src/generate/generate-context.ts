import path from 'node:path';
import { CsvWriter, type Cell } from './csv';
import type { Sizes } from './sizes';

export interface GenerateProgress {
  file: string;
  /** Rows written so far. */
  done: number;
  /** Rows the file will have. */
  total: number;
}

/** What every table writer gets: where to write, how much, the seed, and a way to open files. */
export interface GenerateContext {
  dir: string;
  sizes: Sizes;
  seed: number;
  /** Opens `<dir>/<file>` with its header row; `total` is the expected row count (for progress). */
  open(file: string, header: readonly string[], total: number): CsvWriter;
  /** Rows written per file so far, in the order the files were opened. */
  readonly written: Map<string, number>;
}

export function createContext(
  dir: string,
  sizes: Sizes,
  seed: number,
  onProgress?: (e: GenerateProgress) => void,
): GenerateContext {
  const written = new Map<string, number>();
  return {
    dir,
    sizes,
    seed,
    written,
    open: (file, header, total) => {
      const report = (done: number) => {
        written.set(file, done);
        onProgress?.({ file, done, total });
      };
      report(0);
      return new CsvWriter(path.join(dir, file), header, report);
    },
  };
}

/**
 * Description and picture cells, with the nil cases by position as in the sample data:
 * 1 = both empty, 3 = only Description empty, 5 = only ItemPictureURL empty, else both present.
 */
export function descAndPic(i: number, desc: string, kind: string, id: number): [Cell, Cell] {
  const v = i % 8;
  return [v === 1 || v === 3 ? null : desc, v === 1 || v === 5 ? null : `https://img.example.com/${kind}/${id}.png`];
}
