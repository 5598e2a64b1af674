// The benchmark's database-alone side: the statements the service sent, turned into pgbench
// scripts with the same parameters (bench/lib/pgbench.ts).

import { caseTree, parsePgbenchOutput, pgbenchSql, pgbenchWorkload, type Statement } from '../bench/lib/pgbench';

const variable = (n: number) => `v${n}`;

test('parameters become pgbench variables; ::casts stay', () => {
  expect(pgbenchSql('select * from t where a = $1 and b = ANY($2::int[]) limit $10', variable))
    .toBe('select * from t where a = :v1 and b = ANY(:v2::int[]) limit :v10;');
});

test('a literal with a colon is the same string in escape syntax (pgbench would read :MI as a variable)', () => {
  const sql = `select to_char(g.t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as t from g where x ILIKE $1 ESCAPE '\\'`;
  expect(pgbenchSql(sql, variable)).toBe(
    `select to_char(g.t AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\\x3AMI\\x3ASS.US') as t from g where x ILIKE :v1 ESCAPE '\\';`,
  );
  // A backslash in a literal that must become an escape string is doubled; '' stays a quote.
  expect(pgbenchSql(`select 'a\\b:c''d'`, variable)).toBe(`select E'a\\\\b\\x3Ac''d';`);
  // Outside literals, line breaks become spaces (a line starting with a backslash is a meta-command).
  expect(pgbenchSql('select 1\n\\x', variable)).toBe('select 1 \\x;');
});

test('SQL pgbench would misread is refused with the statement', () => {
  expect(() => pgbenchSql('select a[1:2] from t', variable)).toThrow('pgbench would read a variable in: select a[1:2]');
  expect(() => pgbenchSql('select $$x$$', variable)).toThrow('dollar quoting');
  expect(() => pgbenchSql("select 'open", variable)).toThrow('unterminated string literal');
});

/** The pgbench expression in JavaScript, to evaluate it for every k. */
const evaluate = (expr: string, k: number): number => {
  const js = expr.replace(/case when :k < (\d+) then/g, '(k < $1 ?').replace(/ else /g, ' : ').replace(/ end/g, ')');
  return new Function('k', `return ${js};`)(k) as number;
};

test('the CASE tree picks the k-th value for every k, with n - 1 CASEs', () => {
  for (const n of [1, 2, 3, 7, 500]) {
    const values = Array.from({ length: n }, (_, i) => String(1_000_000 + i * 7 - (i % 3)));
    const tree = caseTree('k', values);
    expect(Array.from({ length: n }, (_, k) => evaluate(tree, k))).toEqual(values.map(Number));
    expect((tree.match(/case when/g) ?? []).length).toBe(n - 1);
  }
  expect(caseTree('k', ['5', '-3'])).toBe('case when :k < 1 then (5) else (-3) end');
});

const globals = (id: string): Statement[] => [{ text: 'select * from g where monster_id = $1 limit $2', values: [id, '100'], name: 'svapi_globals' }];

test('integer parameters that differ by sample: one script drawing k, the constants by -D', () => {
  const w = pgbenchWorkload([globals('31'), globals('7'), globals('500')]);
  expect(w.mode).toBe('one script');
  expect(w.defines).toEqual([['q0p2', '100']]);
  expect(w.files).toHaveLength(1);
  const [draw, set, sql] = w.files[0].text.trimEnd().split('\n');
  expect(draw).toBe('\\set k random(0, 2)');
  expect(set.startsWith('\\set q0p1 ')).toBe(true);
  expect([0, 1, 2].map((k) => evaluate(set.slice('\\set q0p1 '.length), k))).toEqual([31, 7, 500]);
  expect(sql).toBe('select * from g where monster_id = :q0p1 limit :q0p2;');
});

test('text parameters, or statements that differ: a script per sample with its own variables', () => {
  const search = (word: string, ids: string | null): Statement[] => [
    { text: 'select * from w where name ILIKE $1 limit $2', values: [`%${word}%`, '1000'] },
    ...(ids ? [{ text: 'select * from d where id = ANY($1::int[])', values: [ids] }] : []),
  ];
  const w = pgbenchWorkload([search('Rust', '{1,2}'), search('Iron', null)]);
  expect(w.mode).toBe('a script per sample');
  expect(w.files.map((f) => f.text)).toEqual([
    'select * from w where name ILIKE :s0q0p1 limit :s0q0p2;\nselect * from d where id = ANY(:s0q1p1::int[]);\n',
    'select * from w where name ILIKE :s1q0p1 limit :s1q0p2;\n',
  ]);
  expect(w.defines).toEqual([['s0q0p1', '%Rust%'], ['s0q0p2', '1000'], ['s0q1p1', '{1,2}'], ['s1q0p1', '%Iron%'], ['s1q0p2', '1000']]);
});

test('what pgbench cannot run is refused', () => {
  expect(() => pgbenchWorkload([])).toThrow('sent no statement');
  expect(() => pgbenchWorkload([[{ text: 'select $1', values: [null] }], [{ text: 'select $1', values: ['1'] }]])).toThrow('NULL parameter');
  const words = Array.from({ length: 101 }, (_, i) => [{ text: 'select $1', values: [`w${i}`] }]);
  expect(() => pgbenchWorkload(words)).toThrow('101 samples with text parameters that differ');
});

test("pgbench's report is read", () => {
  const out = `transaction type: multiple scripts
scaling factor: 1
query mode: prepared
number of clients: 10
number of threads: 2
maximum number of tries: 1
duration: 5 s
number of transactions actually processed: 7012
number of failed transactions: 0 (0.000%)
latency average = 7.101 ms
initial connection time = 21.212 ms
tps = 1408.264131 (without initial connection time)
`;
  expect(parsePgbenchOutput(out)).toEqual({ tps: 1408.264131, transactions: 7012, failed: 0, latencyMsAverage: 7.101 });
  expect(() => parsePgbenchOutput('pgbench: error: connection failed')).toThrow("pgbench's output has no");
});
