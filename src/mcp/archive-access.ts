import { ArchiveFacts, openArchive, type ArchiveReader } from '../storage/reader/index.js';
import { isCutCell } from '../storage/query/index.js';
import { uiSearch, type UiSearch } from '../serve/search-mount.js';
import { uiSql, type FirstRows, type UiSql } from '../serve/sql-mount.js';

/** A tool's time limit for one search or statement, in ms: serve's for its search and SQL pages. */
export const TOOL_TIMEOUT_MS = 5000;

/**
 * What the tools read the archive through, all read-only: a reader for one capture at a time, the facts
 * for crawl numbers, and serve's search and SQL runners, each statement in a process of its own with a
 * time limit, a few at a time (serve's SQL page and search use the same), so a slow one never holds the server.
 */
export interface ArchiveAccess {
  readonly path: string;
  readonly reader: ArchiveReader;
  readonly facts: ArchiveFacts;
  readonly search: UiSearch;
  readonly sql: UiSql;
  close(): void;
}

/** Opens the archive read-only; a file that is no archive is refused here, before any client connects. */
export function openArchiveAccess(path: string, timeoutMs: number = TOOL_TIMEOUT_MS): ArchiveAccess {
  const reader = openArchive(path);
  let facts: ArchiveFacts;
  try {
    facts = ArchiveFacts.open(path);
  } catch (error) {
    reader.close();
    throw error;
  }
  const search = uiSearch(path, timeoutMs);
  const sql = uiSql(path, timeoutMs);
  return {
    path,
    reader,
    facts,
    search,
    sql,
    close() {
      search.close();
      sql.close();
      facts.close();
      reader.close();
    },
  };
}

/** A cell as JSON can carry it: one cut by the runner (a CutCell) as its head and an ellipsis, a BLOB as its size. */
export function cellValue(cell: unknown): unknown {
  if (!isCutCell(cell)) return cell;
  return cell.cut === 'blob' ? `[BLOB, ${cell.bytes} bytes]` : `${cell.head}…`;
}

/** Rows as objects of their columns, each cell as cellValue gives it. */
export function rowObjects(result: FirstRows): Array<Record<string, unknown>> {
  return result.rows.map((row) => Object.fromEntries(result.columns.map((name, i) => [name, cellValue(row[i])])));
}
