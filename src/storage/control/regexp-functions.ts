import type { Database } from 'better-sqlite3';

/** Compiled pattern lists kept per connection, by their JSON: a scan calls the function once per row. */
const CACHE_SIZE = 16;

/**
 * Registers `crawlite_matches(patterns, text)` on a connection: 1 when `text` matches one of the JavaScript
 * regular expressions in the JSON array `patterns` (as --exclude reads them), else 0. SQLite's own REGEXP
 * is not there, and a crawl's patterns are JavaScript's anyway.
 */
export function registerRegexpFunctions(db: Database): void {
  const compiled = new Map<string, RegExp[]>();
  db.function('crawlite_matches', { deterministic: true }, (patterns: unknown, text: unknown) => {
    if (typeof patterns !== 'string' || typeof text !== 'string') return 0;
    let list = compiled.get(patterns);
    if (!list) {
      list = (JSON.parse(patterns) as string[]).map((source) => new RegExp(source));
      if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
      compiled.set(patterns, list);
    }
    return list.some((pattern) => pattern.test(text)) ? 1 : 0;
  });
}
