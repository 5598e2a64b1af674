import type { XmlNode } from './xml-tree';

// The parameters the comparison calls with: values taken from the answers themselves (monster
// IDs and names, players and land areas from the globals, words from names), a few of each,
// plus the edge cases a port gets wrong.

/** An ID no record has. */
export const UNKNOWN_ID = '2147483647';
/** Words that match themselves only (`%`, `_`), and a non-ASCII one. */
export const EDGE_WORDS = ['%', '_', 'ö'];
/** The number of globals asked for; and 0, which is no valid number. */
export const NUMBER_OF_GLOBALS = '25';
export const INVALID_NUMBER_OF_GLOBALS = '0';

/** The texts of every element named `local` in a tree, in document order. */
export function textsOf(root: XmlNode, local: string, within?: string): string[] {
  const out: string[] = [];
  const walk = (n: XmlNode, inside: boolean) => {
    const here = inside || within === undefined || n.local === within;
    if (n.local === local && here && !n.children.length) out.push(n.text.trim());
    for (const c of n.children) walk(c, here);
  };
  walk(root, false);
  return out;
}

/**
 * Up to `n` of the values either side gave: first those only one side has (where a difference is
 * likely), then values spread evenly over the rest, in the order first seen.
 */
export function sample(legacy: string[], svapi: string[], n: number): string[] {
  const l = new Set(legacy.filter(Boolean));
  const s = new Set(svapi.filter(Boolean));
  const oneSide = [...l, ...s].filter((v) => !(l.has(v) && s.has(v)));
  const both = [...l].filter((v) => s.has(v));
  const picked = [...new Set(oneSide)].slice(0, n);
  const left = n - picked.length;
  for (let i = 0; i < left && i < both.length; i++) picked.push(both[Math.floor((i * both.length) / Math.min(left, both.length))]);
  return [...new Set(picked)];
}

/** Search words from names: the first word of each, and a lower-cased piece of the first name. */
export function wordsFrom(names: string[]): string[] {
  const words = names.map((name) => name.split(/\s+/)[0]).filter(Boolean);
  const first = names.find((name) => name.length >= 4);
  if (first) words.push(first.slice(1, 4).toLowerCase());
  return [...new Set(words)];
}
