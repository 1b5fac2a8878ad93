import type { Database as Db } from 'better-sqlite3';

/**
 * A value of the `meta` table of an archive someone else may have made: undefined when the table or
 * the key is missing, the JSON it holds, or the text as stored when it is not JSON (the checks that
 * read it then refuse a value of the wrong kind, rather than a parse error escaping).
 */
export function readMetaValue(db: Db, key: string): unknown {
  if (db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").get() === undefined) return undefined;
  const row = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key);
  if (row === undefined) return undefined;
  try {
    return JSON.parse(row.value) as unknown;
  } catch {
    return row.value;
  }
}
