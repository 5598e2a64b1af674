import type { Knex } from 'knex';
import { readRows, type Statement } from './statements';

/** `word` as a LIKE substring pattern in which `%`, `_` and `\` match themselves. */
export function substringPattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The two statements of a name search: for an empty word (named) and for a word. */
export interface NameSearch {
  /** Every row, first `$1` in name order: one plan serves every call, so it has a name. */
  readonly listing: Statement;
  /** Rows whose name contains the word (`$1` pattern, `$2` word), first `$3`: planned for each word. */
  readonly matching: Statement;
}

/**
 * CONTRACT §5 search over `select` (a SELECT ... FROM ... without WHERE): a substring of
 * `nameColumn` under Unicode simple case folding (an empty word matches all), exact matches first,
 * then prefixes, then the rest; by folded name (code point order, so every server sorts alike),
 * then ID. The name is compared through its stored fold, `<nameColumn>_folded`, and the word
 * through the same function, svapi_casefold (migrations/20261124000005_case_folded_names.ts);
 * the word's fold is a constant when the statement is planned, so the LIKE is what the trigram
 * index on the folded name serves. An empty word ranks every name alike (a prefix of all), so that
 * ranking is left out of the listing and the name-order index serves its ORDER BY.
 */
export function nameSearch(name: string, select: string, nameColumn: string, idColumn: string): NameSearch {
  const folded = `${nameColumn}_folded`;
  const order = `${folded} COLLATE "C", ${idColumn}`;
  return {
    listing: { name, text: `${select}\nORDER BY ${order}\nLIMIT $1` },
    matching: {
      text: `${select}\nWHERE ${folded} LIKE svapi_casefold($1) ESCAPE '\\'
ORDER BY CASE WHEN ${folded} = svapi_casefold($2) THEN 0 WHEN starts_with(${folded}, svapi_casefold($2)) THEN 1 ELSE 2 END, ${order}
LIMIT $3`,
    },
  };
}

/** The statement of `search` for `word` and its values. */
export function searchStatement(search: NameSearch, word: string, limit: number): { statement: Statement; values: (string | number)[] } {
  return word === ''
    ? { statement: search.listing, values: [limit] }
    : { statement: search.matching, values: [substringPattern(word), word, limit] };
}

/** The first `limit` rows of `search` for `word`, as arrays (see statements.ts). */
export function searchRows(knex: Knex, search: NameSearch, word: string, limit: number): Promise<unknown[][]> {
  const { statement, values } = searchStatement(search, word, limit);
  return readRows(knex, statement, values);
}
