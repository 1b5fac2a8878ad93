import { CrawliteError } from '../../crawlite-error.js';

// A search's cost grows with its terms (each prefix* reads every word it starts), and any web
// page can send one to `serve` in an <img> URL: a query is capped far above what a person types.

export const MAX_SEARCH_CHARS = 1000;
export const MAX_SEARCH_WORDS = 64;

/** A query longer than a person types: refused before anything reads the index. */
export class SearchTooLargeError extends CrawliteError {
  constructor(what: string) {
    super('SEARCH_TOO_LARGE', `search query too long: ${what}; narrow it`);
  }
}

/** FTS5's operators, which are words of the query but ask the index for nothing. */
const OPERATORS = new Set(['OR', 'AND', 'NOT', 'NEAR']);

/** Runs of letters and digits other than the operators: about how many terms the index is asked for. */
export function searchWords(query: string): number {
  let words = 0;
  for (const [word] of query.matchAll(/[\p{L}\p{N}_]+/gu)) if (!OPERATORS.has(word)) words += 1;
  return words;
}

/** Throws SearchTooLargeError (code 'SEARCH_TOO_LARGE') past MAX_SEARCH_CHARS characters or MAX_SEARCH_WORDS words. */
export function checkSearchSize(query: string): void {
  const chars = query.length > MAX_SEARCH_CHARS ? [...query].length : query.length;
  const format = (n: number) => n.toLocaleString('en-US');
  if (chars > MAX_SEARCH_CHARS) throw new SearchTooLargeError(`${format(chars)} characters, at most ${format(MAX_SEARCH_CHARS)}`);
  const words = searchWords(query);
  if (words > MAX_SEARCH_WORDS) throw new SearchTooLargeError(`${format(words)} words, at most ${MAX_SEARCH_WORDS}`);
}
