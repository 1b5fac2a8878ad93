import type { Database, Statement } from 'better-sqlite3';
import { QueryRefusedError } from '../archive/archive-errors.js';
import type { QueryParams, ReadOnlyQuery } from '../reader/reader-types.js';

export type { QueryParams, ReadOnlyQuery };

/** Statements SQLite calls read-only that still reach outside the archive file. */
const OUTSIDE_THE_FILE = /^(?:\s|;|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*(attach|detach|vacuum)\b/i;

const failed = (error: unknown) =>
  new QueryRefusedError(`query failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });

/**
 * Prepares exactly one statement that only reads. The connection is read-only
 * already; this also refuses ATTACH (which could read another file) and
 * VACUUM INTO (which could write one), and says why in one line. Nothing runs
 * until `rows` is iterated; `params` are bound then.
 */
export function prepareReadOnlyQuery(db: Database, sql: string, params: QueryParams = []): ReadOnlyQuery {
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
  if (!statement.reader) return { columns: [], rows: runOnly(statement, params) };
  return { columns: statement.columns().map((column) => column.name), rows: readRows(statement.raw(true), params) };
}

/** A statement that returns no rows (BEGIN, some pragmas) runs once, when iterated. */
function* runOnly(statement: Statement, params: QueryParams): Generator<unknown[]> {
  try {
    statement.run(params);
  } catch (error) {
    throw failed(error);
  }
}

/** One row at a time (iterate, not all): memory stays flat whatever the row count. */
function* readRows(statement: Statement, params: QueryParams): Generator<unknown[]> {
  let rows: IterableIterator<unknown[]>;
  try {
    rows = statement.iterate(params) as IterableIterator<unknown[]>;
  } catch (error) {
    throw failed(error);
  }
  try {
    for (;;) {
      let next: IteratorResult<unknown[]>;
      try {
        next = rows.next();
      } catch (error) {
        throw failed(error);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Stopped early: release the statement so the connection can close.
    rows.return?.();
  }
}
