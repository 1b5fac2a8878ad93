import type { Database } from 'better-sqlite3';

// A response's media type: its Content-Type without parameters, trimmed and in lower case, so
// `text/html; charset=utf-8` and `Text/HTML` are one type. A response stored without one (or with
// an empty one) has the type NO_MEDIA_TYPE. Lists count and filter by this one expression.

export const NO_MEDIA_TYPE = '(none)';

/** The SQL expression of the media type of `column` (a content_type column). */
export const mediaTypeSql = (column: string): string =>
  `coalesce(nullif(lower(trim(substr(${column}, 1, instr(${column} || ';', ';') - 1))), ''), '${NO_MEDIA_TYPE}')`;

/** A media type as the lists compare it: `Text/HTML; charset=x` is `text/html`. */
export function mediaType(contentType: string | null | undefined): string {
  const type = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return type === '' ? NO_MEDIA_TYPE : type;
}

export interface MediaTypeCount {
  type: string;
  count: number;
}

// Counting reads every response, so the counts are kept per connection until another
// connection commits (PRAGMA data_version): a finished archive is counted once per serve.
const counted = new WeakMap<Database, { version: number; limit: number; rows: MediaTypeCount[] }>();

/** The archive's media types with their responses, most first, at most `limit` of them. */
export function mediaTypeCounts(db: Database, limit = 50): MediaTypeCount[] {
  const version = db.pragma('data_version', { simple: true }) as number;
  const kept = counted.get(db);
  if (kept && kept.version === version && kept.limit === limit) return kept.rows;
  const rows = db
    .prepare<[number], MediaTypeCount>(
      `SELECT ${mediaTypeSql('content_type')} AS type, count(*) AS count FROM response GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?`,
    )
    .all(limit);
  counted.set(db, { version, limit, rows });
  return rows;
}
