import type { Database } from 'better-sqlite3';

// What the serve overview shows besides `crawlite stats`'s report: when the crawl
// ran, what types it stored, which hosts it met, and fetches over time.

export interface ArchiveOverview {
  runs: { first: string | null; last: string | null };
  contentTypes: Array<{ type: string; count: number }>;
  hosts: Array<{ origin: string; count: number }>;
}

export function archiveOverview(db: Database, topHosts = 20): ArchiveOverview {
  const runs = db
    .prepare<[], { first: string | null; last: string | null }>('SELECT min(started_at) AS first, max(coalesce(ended_at, started_at)) AS last FROM run')
    .get()!;
  // The media type alone: `text/html; charset=utf-8` and `text/html` are one type.
  const contentTypes = db
    .prepare<[], { type: string; count: number }>(
      `SELECT coalesce(lower(trim(substr(content_type, 1, instr(content_type || ';', ';') - 1))), '(none)') AS type, count(*) AS count
       FROM response GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 30`,
    )
    .all();
  const hosts = db
    .prepare<[number], { origin: string; count: number }>('SELECT origin, count(*) AS count FROM url GROUP BY origin ORDER BY 2 DESC, 1 LIMIT ?')
    .all(topHosts);
  return { runs, contentTypes, hosts };
}

export interface Timeline {
  /** Start of each bucket, Unix seconds. */
  t: number[];
  /** Responses stored in that bucket. */
  n: number[];
  bucketSeconds: number;
}

const BUCKETS = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 6 * 3600, 86400, 7 * 86400];

/** Responses stored over time, in at most about `maxBuckets` buckets of a round size. */
export function fetchTimeline(db: Database, maxBuckets = 200): Timeline {
  const span = db
    .prepare<[], { first: number | null; last: number | null }>(
      "SELECT CAST(strftime('%s', min(fetched_at)) AS INTEGER) AS first, CAST(strftime('%s', max(fetched_at)) AS INTEGER) AS last FROM response",
    )
    .get()!;
  if (span.first === null || span.last === null) return { t: [], n: [], bucketSeconds: 1 };
  const seconds = span.last - span.first + 1;
  const bucketSeconds = BUCKETS.find((size) => seconds / size <= maxBuckets) ?? Math.ceil(seconds / maxBuckets);
  const rows = db
    .prepare<[number, number], { t: number; n: number }>(
      "SELECT (CAST(strftime('%s', fetched_at) AS INTEGER) / ?) * ? AS t, count(*) AS n FROM response GROUP BY 1 ORDER BY 1",
    )
    .all(bucketSeconds, bucketSeconds);
  // Empty buckets as zeros, so the line drops to the floor while nothing was fetched.
  const t: number[] = [];
  const n: number[] = [];
  const counts = new Map(rows.map((row) => [row.t, row.n]));
  const start = rows[0]!.t;
  const end = rows.at(-1)!.t;
  for (let at = start; at <= end && t.length <= maxBuckets * 2; at += bucketSeconds) {
    t.push(at);
    n.push(counts.get(at) ?? 0);
  }
  return { t, n, bucketSeconds };
}
