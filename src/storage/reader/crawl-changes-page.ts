import type { Database } from 'better-sqlite3';
import { CHANGE_KINDS, CHANGES_SQL, type ChangeKind, type CrawlChange } from './crawl-changes.js';

// What changed between two crawls, for browsing: the count of each kind, and the
// changes a page at a time in URL order after the last URL shown.

export type ChangeCounts = Record<ChangeKind, number>;

/** How many URLs of each kind the comparison of the two crawls finds. */
export function changeCounts(db: Database, from: number, to: number): ChangeCounts {
  const counts = Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, 0])) as ChangeCounts;
  const rows = db.prepare<{ from: number; to: number }, { change: ChangeKind; n: number }>(`SELECT change, count(*) AS n FROM (${CHANGES_SQL}) GROUP BY change`).all({ from, to });
  for (const row of rows) counts[row.change] = row.n;
  return counts;
}

export interface ChangesPage {
  rows: CrawlChange[];
  /** The URL to pass as `after` for the next page; absent when nothing is left. */
  next?: string;
}

/** Up to `limit` changes of the kinds asked for, after the URL `after` ('' for the first page). */
export function listChanges(db: Database, from: number, to: number, options: { kinds: readonly ChangeKind[]; after: string; limit: number }): ChangesPage {
  const { kinds, after, limit } = options;
  if (kinds.length === 0) return { rows: [] };
  const sql = `SELECT * FROM (${CHANGES_SQL}) WHERE change IN (${kinds.map(() => '?').join(', ')}) AND url > ? ORDER BY url LIMIT ?`;
  // The crawls are bound by name, the kinds and the page by place. One row more than shown says whether there is a next page.
  const rows = db.prepare<unknown[], CrawlChange>(sql).all({ from, to }, ...kinds, after, limit + 1);
  if (rows.length <= limit) return { rows };
  rows.length = limit;
  return { rows, next: rows.at(-1)!.url };
}
