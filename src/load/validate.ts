import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { readCsv, type CsvRecord } from './csv';
import { FILES, SPEC_BY_FILE, idColumn, referencesTo, type ColumnSpec, type FileSpec } from './files';
import { DatasetError, ProblemList } from './problems';
import type { throttle } from './progress';
import { parseTimestamp, parseXsdBoolean, parseXsdDecimal, parseXsdInt, type Parsed } from './values';

/** A file that passed validation, with what the write phase needs to read it again. */
export interface ValidatedFile {
  spec: FileSpec;
  path: string;
  /** Index of each spec column's cell in a record. */
  cellIndex: number[];
  rows: number;
  size: number;
  mtimeMs: number;
}

type Progress = ReturnType<typeof throttle>;
type Add = (line: number, column: string, reason: string) => void;

/**
 * A cell as the text Postgres reads for its column (null for an empty cell). Ints lose their
 * whitespace and sign noise; decimals keep their digits as written.
 */
export function convertCell(column: ColumnSpec, text: string): Parsed<string | null> {
  if (column.type === 'text' ? text === '' : text.trim() === '') {
    return column.nullable ? { value: null } : { error: 'empty, but a value is required' };
  }
  switch (column.type) {
    case 'text':
      return { value: text };
    case 'int': {
      const r = parseXsdInt(text);
      return r.error === undefined ? { value: String(r.value) } : r;
    }
    case 'decimal':
      return parseXsdDecimal(text);
    case 'boolean': {
      const r = parseXsdBoolean(text);
      return r.error === undefined ? { value: r.value ? 'true' : 'false' } : r;
    }
    case 'timestamp':
      return parseTimestamp(text);
  }
}

/** Checks every file of the dataset in `dir`; throws a DatasetError listing every problem. */
export async function validateDataset(
  knex: Knex,
  dir: string,
  replace: boolean,
  progress: Progress,
): Promise<ValidatedFile[]> {
  const problems = new ProblemList();
  const present = await datasetFiles(dir, problems);
  const ids = new Map<string, Map<number, number>>();
  const dbIds = new Map<string, Set<number>>();
  const lookup = async (file: string) => {
    const own = ids.get(file);
    // With --replace, the database's rows of a kind in the dataset are going away.
    if (replace && present.has(file)) return { has: (id: number) => own!.has(id), where: file };
    const spec = SPEC_BY_FILE.get(file)!;
    if (!dbIds.has(file)) dbIds.set(file, await idsInDatabase(knex, spec));
    const db = dbIds.get(file)!;
    return { has: (id: number) => own?.has(id) || db.has(id), where: `${file} or the database` };
  };

  const validated: ValidatedFile[] = [];
  for (const spec of FILES) {
    if (!present.has(spec.file)) continue;
    const file = path.join(dir, spec.file);
    const stat = await fs.promises.stat(file);
    const refs = await Promise.all(spec.columns.map((c) => (c.ref ? lookup(c.ref) : undefined)));
    const add: Add = (line, column, reason) => problems.add(spec.file, line, column, reason);
    const checker = new FileChecker(spec, refs, add);
    const onBytes = (bytes: number) => progress(spec.file, 'read', bytes, stat.size);
    onBytes(0);
    for await (const batch of readCsv(file, (line, reason) => add(line, '', reason), onBytes)) {
      for (const record of batch) checker.check(record);
    }
    if (!checker.cellIndex) add(1, '', 'no header row');
    if (spec.mode === 'record') ids.set(spec.file, checker.ids as Map<number, number>);
    validated.push({
      spec, path: file, cellIndex: checker.cellIndex ?? [], rows: checker.rows, size: stat.size, mtimeMs: stat.mtimeMs,
    });
  }
  if (replace) await checkStillReferenced(knex, validated, ids, problems);
  if (problems.total > 0) throw new DatasetError(problems.list(), problems.total);
  return validated;
}

/** The known files present in `dir`; unknown `.csv` files are problems. */
async function datasetFiles(dir: string, problems: ProblemList): Promise<Set<string>> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such folder' : code === 'ENOTDIR' ? 'not a folder' : String(e);
    throw new DatasetError([{ file: dir, line: 0, column: '', reason }]);
  }
  const known = FILES.map((f) => f.file);
  const present = new Set<string>();
  for (const entry of entries) {
    if (SPEC_BY_FILE.has(entry.name) && entry.isFile()) present.add(entry.name);
    else if (entry.name.toLowerCase().endsWith('.csv')) {
      problems.add(entry.name, 0, '', `not a dataset file (the files are ${known.join(', ')})`);
    }
  }
  if (present.size === 0) {
    problems.add(dir, 0, '', `no dataset files (${known.join(', ')})`);
    throw new DatasetError(problems.list(), problems.total);
  }
  return present;
}

async function idsInDatabase(knex: Knex, spec: FileSpec): Promise<Set<number>> {
  const column = idColumn(spec).db;
  const rows: { id: number }[] = await knex(spec.table).select(`${column} as id`);
  return new Set(rows.map((r) => r.id));
}

type Lookup = { has(id: number): boolean; where: string };

/** Checks one file's records, keeping the IDs (or keys) it has seen. */
class FileChecker {
  cellIndex: number[] | undefined;
  cellCount = 0;
  rows = 0;
  readonly ids = new Map<number | string, number>();
  private readonly values: (string | null | undefined)[];

  constructor(
    private readonly spec: FileSpec,
    private readonly refs: (Lookup | undefined)[],
    private readonly add: Add,
  ) {
    this.values = new Array(spec.columns.length);
  }

  check(record: CsvRecord): void {
    if (!this.cellIndex) {
      this.cellIndex = this.header(record);
      this.cellCount = record.cells.length;
      return;
    }
    this.rows++;
    const { line, cells } = record;
    if (cells.length !== this.cellCount) {
      this.add(line, '', `${cells.length} cells, but the header has ${this.cellCount}`);
      return;
    }
    const { columns } = this.spec;
    for (let j = 0; j < columns.length; j++) {
      const index = this.cellIndex[j];
      if (index < 0) {
        this.values[j] = undefined;
        continue;
      }
      const r = convertCell(columns[j], cells[index]);
      if (r.error !== undefined) this.add(line, columns[j].name, r.error);
      this.values[j] = r.value;
    }
    this.checkKey(line);
    for (let j = 0; j < columns.length; j++) {
      const ref = this.refs[j];
      const v = this.values[j];
      if (ref && v != null && !ref.has(Number(v))) {
        const target = idColumn(SPEC_BY_FILE.get(columns[j].ref!)!).name;
        this.add(line, columns[j].name, `no ${target} ${v} in ${ref.where}`);
      }
    }
  }

  private checkKey(line: number): void {
    const [id, name] = this.values;
    if (this.spec.mode === 'globals' || id == null) return;
    const idName = this.spec.columns[0].name;
    if (this.spec.mode === 'record') {
      const first = this.ids.get(Number(id));
      if (first === undefined) this.ids.set(Number(id), line);
      else this.add(line, idName, `duplicate ${idName} ${id} (first on line ${first})`);
    } else if (name != null) {
      const key = `${id}\t${name}`;
      const first = this.ids.get(key);
      if (first === undefined) this.ids.set(key, line);
      else this.add(line, this.spec.columns[1].name, `duplicate ${JSON.stringify(name)} for ${idName} ${id} (first on line ${first})`);
    }
  }

  private header({ line, cells }: CsvRecord): number[] {
    const names = cells.map((c) => c.trim());
    const wanted = new Set(this.spec.columns.map((c) => c.name));
    const at = new Map<string, number>();
    names.forEach((name, i) => {
      const label = name || `(column ${i + 1})`;
      if (at.has(name)) {
        this.add(line, label, 'duplicate column');
      } else if (!wanted.has(name)) {
        const like = this.spec.columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
        this.add(line, label, `unknown column${like ? ` (did you mean ${like.name}?)` : ''}`);
      }
      if (!at.has(name)) at.set(name, i);
    });
    return this.spec.columns.map((c) => {
      const i = at.get(c.name);
      if (i === undefined) this.add(line, c.name, 'missing column');
      return i ?? -1;
    });
  }
}

/**
 * With --replace, a record the dataset lacks is deleted; one still referred to by rows of a
 * kind the dataset leaves alone cannot be, which is a problem to report before writing.
 * (A weapon's damage rows go with it.)
 */
async function checkStillReferenced(
  knex: Knex,
  files: ValidatedFile[],
  ids: Map<string, Map<number, number>>,
  problems: ProblemList,
): Promise<void> {
  const present = new Set(files.map((f) => f.spec.file));
  for (const { spec } of files) {
    if (spec.mode !== 'record') continue;
    const kept = ids.get(spec.file)!;
    const idName = idColumn(spec).name;
    for (const { spec: child, column } of referencesTo(spec.file)) {
      if (present.has(child.file) || child.mode === 'damage') continue;
      const rows: { id: number; n: number }[] = await knex(child.table)
        .select(`${column.db} as id`, knex.raw('count(*)::int as n'))
        .whereNotNull(column.db)
        .groupBy(column.db)
        .orderBy(column.db);
      for (const { id, n } of rows) {
        if (kept.has(id)) continue;
        problems.add(spec.file, 0, idName,
          `${idName} ${id} is not in the file, but ${n} ${child.table} row(s) in the database refer to it (${column.name}), so --replace cannot remove it`);
      }
    }
  }
}
