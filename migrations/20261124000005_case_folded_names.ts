import type { Knex } from 'knex';
import { SIMPLE_CASE_FOLDING_17 } from './case-folding-unicode-17';

// CONTRACT §5: SearchWord is a substring of the name under Unicode simple case folding (status C
// and S), character for character, the same on every server. Postgres's lower() and ILIKE follow
// the server's locale (glibc lowers İ to i; PGlite and a Postgres server disagree on others), so
// the fold is our own SQL function, svapi_casefold, and each searched name is stored folded in a
// generated column: every writer (svapi load, knex, a DBA's UPDATE) keeps it right, and the
// search indexes are on it.

const TABLES = [
  ['weapons', 'weapon_name', 'weapon_id'],
  ['items', 'item_name', 'item_id'],
  ['monsters', 'monster_name', 'monster_id'],
] as const;

// Non-ASCII mappings in groups by block: translate() costs the string's length times its list's,
// so each group's runs only on a name holding one of its characters.
const BLOCKS = [0x80, 0xe0, 0x180, 0x370, 0x400, 0x460, 0x530, 0x1e00, 0x1f00, 0x2000, 0x2c00, 0xa000, 0xff00, 0x10000, 0x110000];

const char = (hex: string) => String.fromCodePoint(parseInt(hex, 16));

/** The group's characters as a regular-expression class, consecutive code points as ranges. */
function characterClass(codePoints: number[]): string {
  let out = '';
  for (let i = 0; i < codePoints.length; i++) {
    let j = i;
    while (j + 1 < codePoints.length && codePoints[j + 1] === codePoints[j] + 1) j++;
    out += j > i ? `${String.fromCodePoint(codePoints[i])}-${String.fromCodePoint(codePoints[j])}` : String.fromCodePoint(codePoints[i]);
    i = j;
  }
  return `[${out}]`;
}

/** The non-ASCII folding as plpgsql statements, one translate() per group (no quote or backslash occurs in them). */
function wideSteps(): string {
  const pairs = SIMPLE_CASE_FOLDING_17.map((p) => p.split(' ')).filter(([from]) => parseInt(from, 16) > 0x7f);
  const steps: string[] = [];
  for (let b = 0; b + 1 < BLOCKS.length; b++) {
    const group = pairs.filter(([from]) => parseInt(from, 16) >= BLOCKS[b] && parseInt(from, 16) < BLOCKS[b + 1]);
    if (group.length === 0) continue;
    const cls = characterClass(group.map(([from]) => parseInt(from, 16)));
    steps.push(`  IF s ~ '${cls}' THEN r := translate(r, '${group.map(([f]) => char(f)).join('')}', '${group.map(([, t]) => char(t)).join('')}'); END IF;`);
  }
  return steps.join('\n');
}

export async function up(knex: Knex): Promise<void> {
  // ASCII letters by lower() under "C" (ASCII only on every server), the rest by the table.
  await knex.raw(`CREATE FUNCTION svapi_casefold_wide(s text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fold$
DECLARE r text := lower(s COLLATE "C");
BEGIN
${wideSteps()}
  RETURN r;
END $fold$`);
  // Inlined into a query: an ASCII name (most) never calls the plpgsql function.
  await knex.raw(`CREATE FUNCTION svapi_casefold(s text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fold$
SELECT CASE WHEN octet_length(s) = char_length(s) THEN lower(s COLLATE "C") ELSE svapi_casefold_wide(s) END $fold$`);
  for (const [table, name, id] of TABLES) {
    await knex.raw(`ALTER TABLE ${table} ADD COLUMN ${name}_folded text GENERATED ALWAYS AS (svapi_casefold(${name})) STORED`);
    await knex.raw(`DROP INDEX ${table}_${name}_trgm`);
    await knex.raw(`CREATE INDEX ${table}_${name}_folded_trgm ON ${table} USING gin (${name}_folded gin_trgm_ops) WITH (fastupdate = off)`);
    await knex.raw(`DROP INDEX ${table}_name_order`);
    await knex.raw(`CREATE INDEX ${table}_name_order ON ${table} ((${name}_folded COLLATE "C"), ${id})`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, name, id] of TABLES) {
    await knex.raw(`ALTER TABLE ${table} DROP COLUMN ${name}_folded`);
    await knex.raw(`CREATE INDEX ${table}_${name}_trgm ON ${table} USING gin (${name} gin_trgm_ops) WITH (fastupdate = off)`);
    await knex.raw(`CREATE INDEX ${table}_name_order ON ${table} ((lower(${name}) COLLATE "C"), ${id})`);
  }
  await knex.raw('DROP FUNCTION svapi_casefold(text)');
  await knex.raw('DROP FUNCTION svapi_casefold_wide(text)');
}
