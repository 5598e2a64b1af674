import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { readCsv, type CsvRecord } from './csv';
import { FILES, SPEC_BY_FILE, idColumn, referencesTo, type ColumnSpec, type FileSpec } from './files';
import { DatasetError, ProblemList } from './problems';
import type { throttle, timer } from './progress';
import type { Row, Stager } from './stage';
import { parseTimestamp, parseXsdBoolean, parseXsdDecimal, parseXsdInt, type Parsed } from '../xsd/values';

/** A file that passed validation; its rows are in its staging table. */
export interface CheckedFile {
  spec: FileSpec;
  rows: number;
}

type Progress = ReturnType<typeof throttle>;
type Add = (line: number, column: string, reason: string) => void;

/**
 * A cell as the text Postgres reads for its column (null for an empty cell). Ints lose their
 * whitespace and sign noise; decimals keep their digits as written.
 */
function convertCell(column: ColumnSpec, text: string): Parsed<string | null> {
  if (column.type === 'text' ? text === '' : text.trim() === '') {
    return column.nullable ? { value: null } : { error: 'empty, but a value is required' };
  }
  switch (column.type) {
    case 'text':
      // Postgres text cannot hold NUL.
      return text.includes('\0') ? { error: 'contains a NUL character' } : { value: text };
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

/**
 * Checks every file of the dataset in `dir`, and throws a DatasetError listing every problem.
 * While no problem has turned up, checked rows go on to `stage` (in the same pass, so a file
 * is read once); after one, the rest is only checked.
 */
export async function checkDataset(
  knex: Knex,
  dir: string,
  replace: boolean,
  progress: Progress,
  stage: (spec: FileSpec) => Promise<Stager>,
  timed: ReturnType<typeof timer>,
): Promise<CheckedFile[]> {
  const problems = new ProblemList();
  const present = await datasetFiles(dir, problems);
  const ids = new Map<string, Map<number, number>>();
  const dbIds = new Map<string, DatabaseIds>();
  const lookup = (file: string): Lookup => {
    const own = ids.get(file);
    // With --replace, the database's rows of a kind in the dataset are going away.
    if (replace && present.has(file)) return { has: (id) => own!.has(id), where: file };
    if (!dbIds.has(file)) dbIds.set(file, new DatabaseIds(knex, SPEC_BY_FILE.get(file)!));
    const db = dbIds.get(file)!;
    return {
      has: (id) => own?.has(id) || db.has(id),
      fetch: (wanted, beforeQuery) => db.fetch(own ? wanted.filter((id) => !own.has(id)) : wanted, beforeQuery),
      where: `${file} or the database`,
    };
  };

  const checked: CheckedFile[] = [];
  for (const spec of FILES) {
    if (!present.has(spec.file)) continue;
    const file = path.join(dir, spec.file);
    const { size } = await fs.promises.stat(file);
    const refs = spec.columns.map((c) => (c.ref ? lookup(c.ref) : undefined));
    const add: Add = (line, column, reason) => problems.add(spec.file, line, column, reason);
    const checker = new FileChecker(spec, refs, add);
    const onBytes = (bytes: number) => progress(spec.file, 'read', bytes, size);
    onBytes(0);
    await timed(spec.file, 'read', async () => {
      const stager = problems.total === 0 ? await stage(spec) : undefined;
      try {
        for await (const batch of readCsv(file, (line, reason) => add(line, '', reason), onBytes)) {
          const fine: { line: number; row: Row }[] = [];
          for (const record of batch) {
            const row = checker.check(record);
            if (row) fine.push({ line: record.line, row });
          }
          // The stage's COPY holds the connection: it ends before the database is asked.
          await checker.fetchReferences(fine.map((c) => c.row), async () => stager?.pause());
          const rows = fine.filter((c) => checker.checkReferences(c.line, c.row)).map((c) => c.row);
          if (stager && problems.total === 0 && rows.length) await stager.add(rows);
        }
      } finally {
        await stager?.finish();
      }
    });
    if (!checker.cellIndex) add(1, '', 'no header row');
    if (spec.mode === 'record') ids.set(spec.file, checker.ids as Map<number, number>);
    checked.push({ spec, rows: checker.rows });
  }
  if (replace) await checkStillReferenced(knex, checked, ids, problems);
  if (problems.total > 0) throw new DatasetError(problems.list(), problems.total);
  return checked;
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

/**
 * The IDs of a kind that the database holds, asked for as the files refer to them: a load of
 * new globals reads the few players it names, not every player there is.
 */
class DatabaseIds {
  private readonly found = new Set<number>();
  private readonly asked = new Set<number>();

  constructor(private readonly knex: Knex, private readonly spec: FileSpec) {}

  has(id: number): boolean {
    return this.found.has(id);
  }

  async fetch(ids: number[], beforeQuery: () => Promise<void>): Promise<void> {
    const wanted = [...new Set(ids)].filter((id) => !this.asked.has(id));
    if (wanted.length === 0) return;
    await beforeQuery();
    for (const id of wanted) this.asked.add(id);
    const column = idColumn(this.spec).db;
    // An array literal: knex would spread a JS array into one binding per element.
    const r = await this.knex.raw(`SELECT ${column} AS id FROM ${this.spec.table} WHERE ${column} = ANY(?::int[])`, [`{${wanted.join(',')}}`]);
    for (const { id } of r.rows as { id: number }[]) this.found.add(id);
  }
}

/** Whether an ID of a kind is in the dataset (or the database); `fetch` first for IDs that may be in the database. */
type Lookup = { has(id: number): boolean; fetch?(ids: number[], beforeQuery: () => Promise<void>): Promise<void>; where: string };

/** Checks one file's records, keeping the IDs (or keys) it has seen. */
class FileChecker {
  cellIndex: number[] | undefined;
  cellCount = 0;
  rows = 0;
  readonly ids = new Map<number | string, number>();

  constructor(
    private readonly spec: FileSpec,
    private readonly refs: (Lookup | undefined)[],
    private readonly add: Add,
  ) {}

  /** The record's row when it is fine (the header is no row). */
  check(record: CsvRecord): Row | undefined {
    if (!this.cellIndex) {
      this.cellIndex = this.header(record);
      this.cellCount = record.cells.length;
      return undefined;
    }
    this.rows++;
    const { line, cells } = record;
    if (cells.length !== this.cellCount) {
      this.add(line, '', `${cells.length} cells, but the header has ${this.cellCount}`);
      return undefined;
    }
    const { columns } = this.spec;
    const row: Row = new Array(columns.length);
    let ok = true;
    for (let j = 0; j < columns.length; j++) {
      const index = this.cellIndex[j];
      if (index < 0) {
        ok = false;
        continue;
      }
      const r = convertCell(columns[j], cells[index]);
      if (r.error !== undefined) {
        this.add(line, columns[j].name, r.error);
        ok = false;
      }
      row[j] = r.value ?? null;
    }
    if (!this.checkKey(line, row)) ok = false;
    return ok ? row : undefined;
  }

  /** Asks the database about the references of `rows` the dataset does not resolve. */
  async fetchReferences(rows: Row[], beforeQuery: () => Promise<void>): Promise<void> {
    for (let j = 0; j < this.refs.length; j++) {
      const ref = this.refs[j];
      if (!ref?.fetch) continue;
      const wanted: number[] = [];
      for (const row of rows) if (row[j] != null) wanted.push(Number(row[j]));
      await ref.fetch(wanted, beforeQuery);
    }
  }

  /** False (and a problem) when a reference of a checked row resolves nowhere; after fetchReferences. */
  checkReferences(line: number, row: Row): boolean {
    const { columns } = this.spec;
    let ok = true;
    for (let j = 0; j < columns.length; j++) {
      const ref = this.refs[j];
      const v = row[j];
      if (ref && v != null && !ref.has(Number(v))) {
        const target = idColumn(SPEC_BY_FILE.get(columns[j].ref!)!).name;
        this.add(line, columns[j].name, `no ${target} ${v} in ${ref.where}`);
        ok = false;
      }
    }
    return ok;
  }

  /** False for a repeated key. */
  private checkKey(line: number, [id, name]: Row): boolean {
    if (this.spec.mode === 'globals' || id == null) return true;
    const idName = this.spec.columns[0].name;
    if (this.spec.mode === 'record') {
      const first = this.ids.get(Number(id));
      if (first === undefined) this.ids.set(Number(id), line);
      else this.add(line, idName, `duplicate ${idName} ${id} (first on line ${first})`);
      return first === undefined;
    }
    if (name == null) return true;
    const key = `${id}\t${name}`;
    const first = this.ids.get(key);
    if (first === undefined) this.ids.set(key, line);
    else this.add(line, this.spec.columns[1].name, `duplicate ${JSON.stringify(name)} for ${idName} ${id} (first on line ${first})`);
    return first === undefined;
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
  files: CheckedFile[],
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
