import type { Knex } from 'knex';

/** `word` as an ILIKE substring pattern in which `%`, `_` and `\` match themselves. */
export function substringPattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * CONTRACT §5 search: case-insensitive substring of `nameColumn` (an empty word matches all),
 * exact matches first, then prefixes, then the rest; by name (case-insensitive, code point
 * order so every server sorts alike), then ID. The ILIKE is what the trigram index serves.
 * With an empty word the statement gets `listing`'s options (a name: see statements.ts); with a
 * word it is planned for that word every time.
 */
export function applyNameSearch(
  query: Knex.QueryBuilder,
  nameColumn: string,
  idColumn: string,
  word: string,
  limit: number,
  listing: Readonly<{ name?: string }>,
): Knex.QueryBuilder {
  if (word === '') query.options(listing);
  else {
    // An empty word ranks every name alike (a prefix of all), so that ranking is left out there
    // and the name-order index serves the whole ORDER BY.
    query
      .whereRaw(`?? ILIKE ? ESCAPE '\\'`, [nameColumn, substringPattern(word)])
      .orderByRaw(`CASE WHEN lower(??) = lower(?) THEN 0 WHEN starts_with(lower(??), lower(?)) THEN 1 ELSE 2 END`, [
        nameColumn, word, nameColumn, word,
      ]);
  }
  return query
    .orderByRaw(`lower(??) COLLATE "C"`, [nameColumn])
    .orderBy(idColumn)
    .limit(limit);
}
