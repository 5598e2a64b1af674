import fs from 'node:fs';
import { once } from 'node:events';

export type Cell = string | number | null;

const NEEDS_QUOTES = /[",\r\n]/;
const FLUSH_AT = 1 << 18;

/** One CSV field: empty for null, quoted only when it must be. */
export function csvField(cell: Cell): string {
  if (cell === null) return '';
  const s = typeof cell === 'number' ? String(cell) : cell;
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Writes a CSV file row by row, in chunks, waiting for the disk when the stream's buffer is
 * full: memory stays flat however many rows go through.
 */
export class CsvWriter {
  rows = 0;
  private readonly out: fs.WriteStream;
  private chunk = '';
  private failed: Error | undefined;

  /** `onRows` hears the row count whenever a chunk goes out, and at the end. */
  constructor(file: string, header: readonly string[], private readonly onRows?: (rows: number) => void) {
    this.out = fs.createWriteStream(file, { encoding: 'utf8' });
    this.out.on('error', (e) => (this.failed ??= e));
    this.chunk = `${header.join(',')}\n`;
  }

  /**
   * Adds a row. Returns a promise only when a chunk went out and the disk is behind: await
   * it then (`const wait = w.row(...); if (wait) await wait;`), so millions of rows cost no
   * promise each.
   */
  row(cells: readonly Cell[]): Promise<void> | undefined {
    let line = '';
    for (let i = 0; i < cells.length; i++) line += (i ? ',' : '') + csvField(cells[i]);
    return this.line(line);
  }

  /** Adds a ready-made line (fields already escaped), without the newline; see row(). */
  line(line: string): Promise<void> | undefined {
    this.chunk += `${line}\n`;
    this.rows++;
    return this.chunk.length >= FLUSH_AT ? this.flush() : undefined;
  }

  async close(): Promise<void> {
    await this.flush();
    if (!this.out.closed) {
      const closed = once(this.out, 'close');
      this.out.end();
      await closed;
    }
    if (this.failed) throw this.failed;
    this.onRows?.(this.rows);
  }

  private async flush(): Promise<void> {
    if (this.failed) throw this.failed;
    if (!this.chunk) return;
    const ok = this.out.write(this.chunk);
    this.chunk = '';
    this.onRows?.(this.rows);
    if (!ok) await once(this.out, 'drain');
  }
}
