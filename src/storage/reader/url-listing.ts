import type { Database } from 'better-sqlite3';
import type { UrlKind, UrlState } from '../../pipeline/ports.js';
import { mediaTypeSql, NO_MEDIA_TYPE } from './media-types.js';
import { hasScreenshots } from './screenshots.js';

// One page of the archive's URLs, in URL order, for browsing. Paging is by key
// (`url > after`) on the url table's UNIQUE index: page 10,000 costs what page 1
// costs, with no OFFSET and no count. Filters narrow the rows met along that index
// instead of choosing another index, so rows come out in URL order without a sort,
// and one request reads at most SCAN_ROWS index entries: a rare filter on a big
// archive answers with what it found so far and where to go on from, never with a
// scan of the whole table. This needs no index beyond what every archive has: the
// content-type filter too reads the response of each URL met, by its primary key.

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'none'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** URLs examined per request at most (at most about 80 ms on a 1,000,000-URL archive). */
export const SCAN_ROWS = 20_000;

/** Characters of a title read per URL: a list shows a line of it, not a hostile megabyte. */
export const TITLE_CHARS = 300;

export interface UrlListingFilter {
  /** Response status by hundreds; `none`: no response stored. */
  statusClass?: StatusClass;
  state?: UrlState;
  kind?: UrlKind;
  /** An origin (`https://example.com`) or a bare host (`example.com`: http and https); ranges on the index either way. */
  host?: string;
  /** Text the URL contains (case-sensitive). */
  text?: string;
  /** A media type (`text/html`, parameters and case ignored; `(none)`: stored without one). */
  contentType?: string;
}

export interface UrlListingRow {
  url: string;
  state: UrlState;
  kind: UrlKind;
  depth: number;
  error: string | null;
  status: number | null;
  contentType: string | null;
  /** The page's title, its first TITLE_CHARS characters; null when it has none. */
  title: string | null;
  size: number | null;
  fetchedAt: string | null;
  /** The type stored with the latest capture's screenshot (as stored: check it), null when it has none. */
  screenshotType: string | null;
}

export interface UrlListingPage {
  rows: UrlListingRow[];
  /** The key to pass as `after` for the next page; absent when nothing is left. */
  next?: string;
  /** True when the page is short because the scan limit was met, not because the URLs ran out. */
  partial: boolean;
}

/** A key range of the url index: `url > after`, below `to` if given. */
interface Range {
  after: string;
  /** Inclusive lower bound, when it lies above `after`. */
  from?: string;
  to?: string;
}

/** The URL ranges a host filter covers, in URL order (`http://` sorts before `https://`). */
function hostRanges(host: string | undefined): Array<{ from: string; to: string }> | undefined {
  if (host === undefined) return undefined;
  const origins = host.includes('://') ? [host.replace(/\/+$/, '')] : [`http://${host.toLowerCase()}`, `https://${host.toLowerCase()}`];
  // Stored URLs are serialised (ASCII), so all of an origin's sort below origin/ + U+10FFFF.
  return origins.map((origin) => ({ from: `${origin}/`, to: `${origin}/\u{10FFFF}` }));
}

/**
 * The statement and its parameters for one range; exported so a test can read its query plan. With
 * `screenshots` (an archive of schema 12 or later), each row says whether the latest capture has a
 * screenshot: a lookup on the screenshot table's key that reads its type, never its image.
 */
export function urlListingQuery(
  filter: UrlListingFilter,
  range: Range,
  limit: number,
  scan = SCAN_ROWS,
  screenshots = false,
): { sql: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = { after: range.after, limit, scan };
  const bounds = [range.from !== undefined ? 'url >= :from' : 'url > :after'];
  if (range.from !== undefined) params.from = range.from;
  if (range.to !== undefined) {
    bounds.push('url < :to');
    params.to = range.to;
  }
  const where: string[] = [];
  const { statusClass, state, kind, text, contentType } = filter;
  // coalesce keeps the LEFT JOIN a left join, which SQLite never reorders: were it made
  // inner, SQLite could start from response and sort.
  if (statusClass === 'none') where.push('r.url_id IS NULL');
  else if (statusClass !== undefined) {
    where.push('coalesce(r.status, 0) BETWEEN :statusMin AND :statusMax');
    const hundreds = Number(statusClass[0]) * 100;
    Object.assign(params, { statusMin: hundreds, statusMax: hundreds + 99 });
  }
  if (state !== undefined) {
    where.push('u.state = :state');
    params.state = state;
  }
  if (kind !== undefined) {
    where.push('u.kind = :kind');
    params.kind = kind;
  }
  if (text !== undefined && text !== '') {
    where.push('instr(u.url, :text) > 0');
    params.text = text;
  }
  if (contentType !== undefined && contentType !== '') {
    // Not `r.url_id IS NOT NULL`: SQLite would make that join inner, free to start from response.
    where.push(`coalesce(r.url_id, 0) > 0 AND ${mediaTypeSql('r.content_type')} = :contentType`);
    params.contentType = contentType.trim().toLowerCase() || NO_MEDIA_TYPE;
  }
  const sql = `SELECT u.url, u.state, u.kind, u.depth, u.error, r.status, r.content_type AS contentType,
      substr(r.title, 1, ${TITLE_CHARS}) AS title, b.size, r.fetched_at AS fetchedAt,
      ${screenshots ? 's.type' : 'NULL'} AS screenshotType
    FROM (SELECT id, url, state, kind, depth, error FROM url WHERE ${bounds.join(' AND ')} ORDER BY url LIMIT :scan) u
    LEFT JOIN response r ON r.url_id = u.id LEFT JOIN body b ON b.id = r.body_id
    ${screenshots ? 'LEFT JOIN screenshot s ON s.url_id = r.url_id AND s.fetched_at = r.fetched_at' : ''}
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY u.url LIMIT :limit`;
  return { sql, params };
}

/** The last URL of a range's scan window: where the next request goes on from. */
function scanEnd(db: Database, range: Range, scan: number): string | undefined {
  const bound = range.from !== undefined ? 'url >= :from' : 'url > :after';
  const sql = `SELECT max(url) AS url FROM (SELECT url FROM url WHERE ${bound}${range.to !== undefined ? ' AND url < :to' : ''} ORDER BY url LIMIT :scan)`;
  const params = {
    after: range.after,
    scan,
    ...(range.from !== undefined ? { from: range.from } : {}),
    ...(range.to !== undefined ? { to: range.to } : {}),
  };
  return db.prepare<[Record<string, unknown>], { url: string | null }>(sql).get(params)?.url ?? undefined;
}

/** Up to `limit` URLs after `after` (exclusive; '' for the first page) that pass `filter`. */
export function listUrls(
  db: Database,
  filter: UrlListingFilter,
  { after = '', limit, scan = SCAN_ROWS }: { after?: string; limit: number; scan?: number },
): UrlListingPage {
  const ranges: Range[] = hostRanges(filter.host)?.flatMap(({ from, to }) => {
    if (after >= to) return [];
    return [after >= from ? { after, to } : { after, from, to }];
  }) ?? [{ after }];
  const rows: UrlListingRow[] = [];
  const screenshots = hasScreenshots(db);
  for (const range of ranges) {
    // One row more than shown says whether there is a next page, without counting.
    const { sql, params } = urlListingQuery(filter, range, limit + 1 - rows.length, scan, screenshots);
    const found = db.prepare<[Record<string, unknown>], UrlListingRow>(sql).all(params);
    rows.push(...found);
    if (rows.length > limit) {
      rows.length = limit;
      return { rows, next: rows.at(-1)!.url, partial: false };
    }
    const end = scanEnd(db, range, scan);
    // The scan window was full: there may be more in this range, so stop here and say where.
    if (end !== undefined && scanWindowFull(db, range, end)) return { rows, next: end, partial: true };
  }
  return { rows, partial: false };
}

/** Whether anything lies in `range` beyond `end`. */
function scanWindowFull(db: Database, range: Range, end: string): boolean {
  const sql = `SELECT 1 FROM url WHERE url > ?${range.to !== undefined ? ' AND url < ?' : ''} LIMIT 1`;
  return db.prepare(sql).get(...(range.to !== undefined ? [end, range.to] : [end])) !== undefined;
}
