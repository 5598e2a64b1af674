import type { GenerateProgress } from './generate-context';

/**
 * A one-line progress display for a terminal (rewritten in place with \r, at most every
 * 100 ms): `generate: hunting_globals.csv 1,234,567/5,000,000 (24%)`.
 */
export function progressLine(out: NodeJS.WriteStream = process.stderr) {
  let last = 0;
  let shown = '';
  const fmt = (n: number) => n.toLocaleString('en-US');
  return {
    update(e: GenerateProgress): void {
      const now = Date.now();
      if (e.done !== e.total && now - last < 100) return;
      last = now;
      const pct = e.total ? Math.min(100, Math.floor((e.done / e.total) * 100)) : 100;
      const line = `generate: ${e.file.padEnd(22)} ${fmt(e.done)}/${fmt(e.total)} (${pct}%)`;
      if (line === shown) return;
      out.write(`\r${line}${' '.repeat(Math.max(0, shown.length - line.length))}`);
      shown = line;
    },
    stop(): void {
      if (shown) out.write('\n');
    },
  };
}
