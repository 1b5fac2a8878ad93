import { CHANGES_SQL, type ChangeKind } from './crawl-changes.js';

// What changed between two crawls, for browsing: the count of each kind, and the
// changes a page at a time in URL order after the last URL shown. Statements with
// their parameters, for the query worker: the comparison reads every capture of both
// crawls, which on a large archive takes longer than a server may stand still.

export interface BoundQuery {
  sql: string;
  params: Record<string, unknown>;
}

/** Rows of (change, n): how many URLs of each kind the comparison of the two crawls finds. */
export function changeCountsQuery(from: number, to: number): BoundQuery {
  return { sql: `SELECT change, count(*) AS n FROM (${CHANGES_SQL}) GROUP BY change`, params: { from, to } };
}

/** The columns changesPageQuery selects, in order. */
export const CHANGE_PAGE_COLUMNS = ['url', 'change', 'from_status', 'to_status', 'from_fetched_at', 'to_fetched_at'] as const;

/** Up to `limit` changes of the kinds asked for (at least one), after the URL `after` ('' for the first page). */
export function changesPageQuery(
  from: number,
  to: number,
  options: { kinds: readonly ChangeKind[]; after: string; limit: number },
): BoundQuery {
  const { kinds, after, limit } = options;
  const params: Record<string, unknown> = { from, to, after, limit };
  kinds.forEach((kind, i) => (params[`kind${i}`] = kind));
  const sql = `SELECT ${CHANGE_PAGE_COLUMNS.join(', ')} FROM (${CHANGES_SQL})
    WHERE change IN (${kinds.map((_, i) => `:kind${i}`).join(', ')}) AND url > :after ORDER BY url LIMIT :limit`;
  return { sql, params };
}
