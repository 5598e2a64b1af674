/**
 * One thing wrong with a dataset. `line` is the 1-based line in the file where the CSV record
 * starts (the header is line 1), or 0 when the problem is about the file as a whole; `column`
 * is the CSV column name, or '' when the problem is not about one column.
 */
export interface Problem {
  file: string;
  line: number;
  column: string;
  reason: string;
}

/** `file:line: column: reason`; the line and the column are left out when they are 0 / ''. */
export function formatProblem(p: Problem): string {
  return `${p.file}${p.line > 0 ? `:${p.line}` : ''}: ${p.column ? `${p.column}: ` : ''}${p.reason}`;
}

export class DatasetError extends Error {
  readonly problems: Problem[];

  /** `total` counts the problems left out of `problems` too. */
  constructor(problems: Problem[], total = problems.length) {
    super(`${total === 1 ? '1 problem' : `${total} problems`} in the dataset, nothing was loaded:\n${problems.map(formatProblem).join('\n')}`);
    this.name = 'DatasetError';
    this.problems = problems;
  }
}

/** Problems per file, kept up to a limit so a garbage file cannot exhaust memory. */
export class ProblemList {
  private readonly kept: Problem[] = [];
  private readonly dropped = new Map<string, number>();
  private readonly perFile = new Map<string, number>();

  constructor(private readonly limitPerFile = 1000) {}

  add(file: string, line: number, column: string, reason: string): void {
    const n = (this.perFile.get(file) ?? 0) + 1;
    this.perFile.set(file, n);
    if (n <= this.limitPerFile) this.kept.push({ file, line, column, reason });
    else this.dropped.set(file, (this.dropped.get(file) ?? 0) + 1);
  }

  get total(): number {
    return [...this.perFile.values()].reduce((a, b) => a + b, 0);
  }

  /** Every kept problem, by file then line, each file's overflow summed up after its problems. */
  list(): Problem[] {
    const files = [...new Set(this.kept.map((p) => p.file))];
    return files.flatMap((file) => {
      const own = this.kept.filter((p) => p.file === file).sort((a, b) => a.line - b.line);
      const more = this.dropped.get(file);
      return more ? [...own, { file, line: 0, column: '', reason: `... ${more} more problems` }] : own;
    });
  }
}
