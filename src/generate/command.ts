import { InvalidArgumentError, type Command } from 'commander';
import { generateDataset, SEARCH_WORD } from './index';
import { progressLine } from './progress';

/** `svapi generate <dir> [--scale N] [--seed S]`. */
export function registerGenerateCommand(program: Command): void {
  program
    .command('generate')
    .description('write a synthetic dataset (CSV files in the load format), deterministic for a seed, for load tests and benchmarks')
    .argument('<dir>', 'folder to write (created if needed; dataset files in it are overwritten)')
    .option('--scale <n>', 'size; 1 = 200 weapons, 1,000 items, 50 monsters, 2,000 players, 50,000 globals', parseScale, 1)
    .option('--seed <n>', 'PRNG seed: the same seed and scale give the same files byte for byte', parseSeed, 1)
    .action(async (dir: string, opts: { scale: number; seed: number }) => {
      const progress = process.stderr.isTTY ? progressLine(process.stderr) : undefined;
      const started = Date.now();
      let report;
      try {
        report = await generateDataset(dir, { scale: opts.scale, seed: opts.seed, onProgress: progress?.update });
      } finally {
        progress?.stop();
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log([
        `generated ${dir} (scale ${opts.scale}, seed ${opts.seed}) in ${seconds} s:`,
        ...report.files.map((f) => `  ${f.file.padEnd(24)} ${String(f.rows).padStart(10)} rows ${mb(f.bytes).padStart(9)}`),
        `SearchWord "${SEARCH_WORD}" matches ${report.sizes.searchWordWeapons} weapons; load with: svapi load ${dir}`,
      ].join('\n'));
    });
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

function parseScale(v: string): number {
  const n = Number(v);
  if (!/^\s*\d*\.?\d+\s*$/.test(v) || !(n > 0) || n > 10_000) throw new InvalidArgumentError('a scale is a positive number (at most 10000)');
  return n;
}

function parseSeed(v: string): number {
  const n = Number(v);
  if (!/^\s*[+-]?\d+\s*$/.test(v) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('a seed is an integer');
  return n;
}
