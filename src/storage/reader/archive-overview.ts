import type { Database } from 'better-sqlite3';
import { mediaTypeCounts, type MediaTypeCount } from './media-types.js';

// What the serve overview shows besides `crawlite stats`'s report: when the crawl
// ran, what types it stored, which hosts it met, and fetches over time.

export interface HostCount {
  origin: string;
  /** URLs of the host with a response stored. */
  fetched: number;
  /** URLs of the host whose fetch failed (no response stored). */
  failed: number;
  /** URLs of the host the archive knows: fetched, failed, queued, or only found as links. */
  seen: number;
}

export interface ArchiveOverview {
  runs: { first: string | null; last: string | null };
  contentTypes: MediaTypeCount[];
  /** Hosts the crawl fetched from (or tried to), most pages fetched first. */
  crawledHosts: HostCount[];
  /** Hosts only found as link targets (nothing fetched or tried), most URLs first. */
  seenHosts: HostCount[];
  /** How many hosts of each kind there are, beyond the ones listed. */
  hostTotals: { crawled: number; seen: number };
}

export function archiveOverview(db: Database, topHosts = 30): ArchiveOverview {
  const runs = db
    .prepare<[], { first: string | null; last: string | null }>(
      'SELECT min(started_at) AS first, max(coalesce(ended_at, started_at)) AS last FROM run',
    )
    .get()!;
  // The media type alone: `text/html; charset=utf-8` and `text/html` are one type.
  const contentTypes = mediaTypeCounts(db).slice(0, 30);
  // A host is crawled when any of its URLs was fetched or tried; the hosts a crawl only found
  // links to (other sites, out of scope) often outnumber its own URLs, and are listed apart.
  // One pass over the URLs; only the listed rows and the two totals come back, however many hosts.
  const hosts = db
    .prepare<[number], HostCount & { crawled: number; total: number }>(
      `SELECT origin, fetched, failed, seen, crawled, total FROM (
         SELECT *, row_number() OVER (PARTITION BY crawled ORDER BY fetched DESC, failed DESC, seen DESC, origin) AS place,
                count(*) OVER (PARTITION BY crawled) AS total
         FROM (SELECT origin, fetched, failed, seen, fetched > 0 OR failed > 0 AS crawled FROM (
           SELECT u.origin AS origin, count(r.url_id) AS fetched, coalesce(sum(r.url_id IS NULL AND u.state = 'failed'), 0) AS failed, count(*) AS seen
           FROM url u LEFT JOIN response r ON r.url_id = u.id GROUP BY u.origin)))
       WHERE place <= ? ORDER BY crawled DESC, place`,
    )
    .all(topHosts);
  const listed = (crawled: boolean) =>
    hosts
      .filter((host) => host.crawled === (crawled ? 1 : 0))
      .map(({ origin, fetched, failed, seen }) => ({ origin, fetched, failed, seen }));
  const total = (crawled: boolean) => hosts.find((host) => host.crawled === (crawled ? 1 : 0))?.total ?? 0;
  return {
    runs,
    contentTypes,
    crawledHosts: listed(true),
    seenHosts: listed(false),
    hostTotals: { crawled: total(true), seen: total(false) },
  };
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
