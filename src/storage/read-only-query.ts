import type { Database } from 'better-sqlite3';
import { QueryRefusedError } from './archive-errors.js';

export interface QueryResult {
  columns: string[];
  rows: unknown[][];
}

/** Statements SQLite calls read-only that still reach outside the archive file. */
const OUTSIDE_THE_FILE = /^(?:\s|;|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*(attach|detach|vacuum)\b/i;

/**
 * Runs exactly one statement that only reads. The connection is read-only
 * already; this also refuses ATTACH (which could read another file) and
 * VACUUM INTO (which could write one), and says why in one line.
 */
export function runReadOnlyQuery(db: Database, sql: string): QueryResult {
  const outside = OUTSIDE_THE_FILE.exec(sql);
  if (outside) throw new QueryRefusedError(`query refuses ${outside[1]!.toUpperCase()}: it reaches files other than the archive`);
  let statement;
  try {
    statement = db.prepare(sql);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof RangeError) throw new QueryRefusedError(`query takes exactly one SQL statement: ${message}`, { cause: error });
    throw new QueryRefusedError(`invalid SQL: ${message}`, { cause: error });
  }
  if (!statement.readonly) throw new QueryRefusedError('query only reads: this statement would write to the archive');
  try {
    if (!statement.reader) {
      statement.run();
      return { columns: [], rows: [] };
    }
    const columns = statement.columns().map((column) => column.name);
    return { columns, rows: statement.raw(true).all() as unknown[][] };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new QueryRefusedError(`query failed: ${message}`, { cause: error });
  }
}
