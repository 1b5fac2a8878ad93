import { QueryRefusedError } from '../archive/archive-errors.js';
import { openArchive } from '../reader/archive-reader.js';
import type { QueryParams } from '../reader/reader-types.js';
import { startQuery, type RowSink, type RunningQuery, type RunShape } from './query-worker-client.js';

// What a query typed into serve's SQL page may be: `crawlite query`'s guard (one
// statement, read-only connection, no ATTACH, DETACH or VACUUM), and also one that
// answers with rows. A statement with no rows to show (`PRAGMA writable_schema = 1`,
// BEGIN, ANALYZE) changes at most the state of the connection it runs on, which
// is thrown away; it is refused all the same, as is any PRAGMA given a value.

/** Any URL's bytes can reach serve's page (an <img> on a hostile site): far longer than a person types. */
export const MAX_SQL_CHARS = 10_000;

/** `PRAGMA name = value`: a setting, never a report. */
const PRAGMA_SET = /^(?:\s|;|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*pragma\b[^=]*=/i;

/** Refuses what the SQL page does not run, in one line, before any process starts. */
export function checkRowsQuery(path: string, sql: string): void {
  if (sql.length > MAX_SQL_CHARS)
    throw new QueryRefusedError(
      `query too long: ${sql.length.toLocaleString('en-US')} characters, at most ${MAX_SQL_CHARS.toLocaleString('en-US')}`,
    );
  if (!sql.trim()) throw new QueryRefusedError('type a SELECT statement');
  const archive = openArchive(path);
  try {
    const { columns } = archive.query(sql);
    if (PRAGMA_SET.test(sql)) {
      throw new QueryRefusedError('query only reads: a PRAGMA that sets a value is refused');
    }
    if (columns.length === 0)
      throw new QueryRefusedError('query only reads: this statement returns no rows (SELECT, WITH, VALUES or a PRAGMA that reports do)');
  } finally {
    archive.close();
  }
}

/** `startQuery` behind checkRowsQuery. */
export function startRowsQuery(
  path: string,
  sql: string,
  sink: RowSink,
  options: { timeoutMs?: number; params?: QueryParams } & RunShape = {},
): RunningQuery {
  checkRowsQuery(path, sql);
  return startQuery(path, sql, sink, options);
}
