import type { CaptureColumns, LinkKind, UrlKind, UrlState } from '../../pipeline/ports.js';
import { bodyBytes } from '../archive/body-bytes.js';

// The rows of the stable views (pages, links, urls) as typed objects, and the
// one SELECT each is read with. Only the views are read, never the tables
// under them, so what a reader returns is what the README documents.

export type { LinkKind, UrlKind, UrlState };

/**
 * A row of the `pages` view: the latest HTTP response of one URL, any status, with its body. The wire
 * columns (httpVersion to startedAt, schema 5 on) are null when not recorded: responses stored before,
 * or archives of an older schema.
 */
export interface ArchivedPage extends CaptureColumns {
  /** The URL fetched, normalised: the archive's key for it. */
  url: string;
  /** The URL as requested (its first spelling, WHATWG-serialised); usually the same as `url`. */
  fetchUrl: string;
  kind: UrlKind;
  /** Link distance from a root (roots are 0). */
  depth: number;
  /** The bytes received, after Content-Encoding was undone. */
  body: Buffer;
  size: number;
  /** SHA-256 of the body, lower-case hex. */
  sha256: string;
  /** 'sha1:' and the base32 SHA-1 of the body (a WARC payload digest). */
  sha1: string | null;
  /**
   * A 304 Not Modified (schema 7 on): status, headers and body are those of the capture it
   * confirmed; httpVersion, reason, rawHeaders and the request are the 304 exchange's.
   */
  revalidated: boolean;
  /** The crawl it was captured in (1: the first; a re-crawl's next); 1 in an archive of a schema before 7. */
  crawl?: number;
  /** The page's links, in order of target; only when asked for (`pages(filter, { outlinks: true })`). */
  outlinks?: Array<{ url: string; kind: LinkKind }>;
}

/** A row of the `links` view: one link found in a page, a redirect or a sitemap. */
export interface ArchivedLink {
  fromUrl: string;
  /** Absolute, normalised, without fragment; in scope or not. */
  toUrl: string;
  kind: LinkKind;
  /** rel="nofollow", or a page with `<meta name="robots" content="nofollow">`. */
  nofollow: boolean;
}

/** A row of the `urls` view: one URL the crawler has seen, fetched or not. */
export interface ArchivedUrl {
  url: string;
  state: UrlState;
  kind: UrlKind;
  depth: number;
  /** Attempts made. */
  tries: number;
  /** Why it failed or was skipped. */
  error: string | null;
}

/** Which pages to read; every field narrows, none given reads them all. */
export interface PageFilter {
  /** One status, or a range with inclusive bounds: `{ min: 400 }` for every error. */
  status?: number | { min?: number; max?: number };
  kind?: UrlKind;
  /** Only URLs that start with this text, e.g. `https://example.com/docs/`. */
  urlPrefix?: string;
}

const PAGE_COLUMNS = `url, fetch_url, kind, depth, status, content_type, charset, location, headers, body, size, sha256,
  fetched_at, elapsed_ms, title, canonical, robots, links_dropped`;

/** The pages view's columns added by schema 5, read as NULL from an archive without them. */
export const WIRE_COLUMNS = [
  'http_version',
  'reason',
  'raw_headers',
  'request_method',
  'request_target',
  'request_headers',
  'remote_ip',
  'started_at',
  'sha1',
] as const;

/** The columns to select from the pages view, given the columns it has. */
export function pageColumns(viewColumns: ReadonlySet<string>): string {
  const wire = WIRE_COLUMNS.map((name) => (viewColumns.has(name) ? name : `NULL AS ${name}`));
  // A URL's page is never a request other than GET: its request body is always NULL.
  return `${PAGE_COLUMNS}, ${wire.join(', ')}, ${viewColumns.has('revalidated') ? 'revalidated' : '0 AS revalidated'}, ${
    viewColumns.has('truncated') ? 'truncated' : 'NULL AS truncated'
  }, NULL AS request_body, ${viewColumns.has('crawl') ? 'crawl' : '1 AS crawl'}`;
}

/** A page's links as a JSON array of [to_url, kind], in order of target (one statement: a read streams pages and links together). */
const OUTLINKS_COLUMN = `(SELECT json_group_array(json_array(to_url, kind))
  FROM (SELECT to_url, kind FROM links WHERE from_url = pages.url ORDER BY to_url)) AS outlinks`;

export interface PagesQueryOptions {
  /** The pages view's columns (what an older archive lacks is read as NULL); all by default. */
  viewColumns?: ReadonlySet<string>;
  /** Read each page's links with it. */
  outlinks?: boolean;
}

const ALL_COLUMNS: ReadonlySet<string> = new Set([...WIRE_COLUMNS, 'revalidated', 'truncated']);

/** Pages in URL order (the url index: streamed, no sort), narrowed by `filter`. */
export function pagesQuery(
  filter: PageFilter = {},
  { viewColumns = ALL_COLUMNS, outlinks = false }: PagesQueryOptions = {},
): { sql: string; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  const narrow = (condition: string, values: Record<string, unknown>) => {
    where.push(condition);
    Object.assign(params, values);
  };
  const { status, kind, urlPrefix } = filter;
  if (typeof status === 'number') narrow('status = :status', { status });
  if (typeof status === 'object' && status.min !== undefined) narrow('status >= :min', { min: status.min });
  if (typeof status === 'object' && status.max !== undefined) narrow('status <= :max', { max: status.max });
  if (kind !== undefined) narrow('kind = :kind', { kind });
  // A range on the url index. Stored URLs are serialised (ASCII), so every
  // one that starts with the prefix sorts below prefix + U+10FFFF.
  if (urlPrefix !== undefined) narrow('url >= :prefix AND url < :prefixEnd', { prefix: urlPrefix, prefixEnd: `${urlPrefix}\u{10FFFF}` });
  const columns = `${pageColumns(viewColumns)}${outlinks ? `, ${OUTLINKS_COLUMN}` : ''}`;
  const sql = `SELECT ${columns} FROM pages ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY url`;
  return { sql, params };
}

/** One page by its URL (the archive's key, as in `pages.url`). */
export const pageSql = (viewColumns: ReadonlySet<string> = ALL_COLUMNS) => `SELECT ${pageColumns(viewColumns)} FROM pages WHERE url = ?`;

/**
 * Captures of the captures view (schema 7 on) as pages rows: the URL's fetch_url and depth are
 * its page's; canonical and robots are not kept per capture.
 */
const captureColumns = (schema11: boolean) => `c.status, c.content_type, c.charset, c.location,
  c.headers, c.body, c.size, c.sha256, c.fetched_at, c.elapsed_ms, c.title, NULL AS canonical, NULL AS robots,
  0 AS links_dropped, c.http_version, c.reason, c.raw_headers, c.request_method, c.request_target, c.request_headers,
  c.remote_ip, c.started_at, c.sha1, c.revalidated, ${schema11 ? 'c.truncated, c.request_body' : 'NULL AS truncated, NULL AS request_body'}, c.crawl`;
const captureRows = (schema11: boolean) =>
  `SELECT c.url, p.fetch_url, c.kind, p.depth, ${captureColumns(schema11)} FROM captures c JOIN pages p ON p.url = c.url`;

/** A capture a replay may show for a URL: one of a GET (or of an archive that did not record the method), never a POST's answer. */
const REPLAYABLE = "coalesce(c.request_method, 'GET') = 'GET'";

/** A URL's captures before its latest, oldest first, POSTs and other methods included (an export writes them all). */
export const earlierCapturesSql = (viewColumns: ReadonlySet<string>) =>
  `${captureRows(viewColumns.has('truncated'))} WHERE c.url = ? AND c.latest = 0 ORDER BY c.fetched_at`;

/**
 * Captures of URLs that have no page: every capture of the URL was of a request other than GET (an
 * imported POST), kept in `capture` only (schema 11 on). By URL, then time.
 */
export const CAPTURES_WITHOUT_PAGE_SQL = `SELECT c.url, c.url AS fetch_url, c.kind, 0 AS depth, ${captureColumns(true)}
  FROM captures c WHERE c.latest = 0 AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.url = c.url) ORDER BY c.url, c.fetched_at`;

/**
 * A URL's capture of a request of one method other than GET that sent one body (an imported POST: none
 * before schema 11), the nearest a time (`:at`, ISO 8601), the later on a tie: what answers a replayed
 * page's POST. On the capture_url index.
 */
export const REQUEST_CAPTURE_SQL = `SELECT c.url, c.url AS fetch_url, c.kind, 0 AS depth, ${captureColumns(true)}
  FROM captures c WHERE c.url = :url AND upper(c.request_method) = :method AND coalesce(c.request_body, x'') = :body
  ORDER BY abs(julianday(c.fetched_at) - julianday(:at)), c.fetched_at DESC LIMIT 1`;

/** A URL's GET capture made at one time (fetched_at). */
export const captureAtSql = (viewColumns: ReadonlySet<string>) =>
  `${captureRows(viewColumns.has('truncated'))} WHERE c.url = ? AND c.fetched_at = ? AND ${REPLAYABLE} ORDER BY c.latest DESC LIMIT 1`;

/** One capture on a URL's timeline: what it was, without its body. */
export interface CaptureTime {
  crawl: number;
  /** ISO 8601 UTC. */
  fetchedAt: string;
  status: number;
  /** Answered 304 Not Modified. */
  revalidated: boolean;
  sha256: string;
  /** The URL's latest capture: its row in `pages`. */
  latest: boolean;
}

/** A URL's GET captures oldest first, without bodies (on the capture_url index; sha1 would read each body, sha256 does not). */
export const CAPTURE_TIMES_SQL = `SELECT crawl, fetched_at AS fetchedAt, status, revalidated, sha256, latest
  FROM captures c WHERE url = ? AND ${REPLAYABLE} ORDER BY fetched_at, latest`;

export const toCaptureTime = (row: Omit<CaptureTime, 'revalidated' | 'latest'> & { revalidated: number; latest: number }): CaptureTime => ({
  ...row,
  revalidated: row.revalidated === 1,
  latest: row.latest === 1,
});

/** Counts of responses, and of those with their header blocks as received and sent. */
export function wireRecordedSql(viewColumns: ReadonlySet<string>): string {
  const count = (column: string) => (viewColumns.has(column) ? `count(${column})` : '0');
  return `SELECT count(*) AS responses, ${count('raw_headers')} AS rawHeaders, ${count('request_headers')} AS requestHeaders FROM pages`;
}

/** SHA-256 of the bodies stored for more than one response (a temporary index of hashes, no bodies read). */
export const SHARED_BODIES_SQL = 'SELECT sha256 FROM pages GROUP BY sha256 HAVING count(*) > 1';

/** URLs in one state that have no stored response, in URL order. */
export const URLS_WITHOUT_RESPONSE_SQL =
  'SELECT url, state, kind, depth, tries, error FROM urls WHERE +state = ? AND url NOT IN (SELECT url FROM pages) ORDER BY url';

export interface PageRow {
  url: string;
  fetch_url: string;
  kind: UrlKind;
  depth: number;
  status: number;
  content_type: string | null;
  charset: string | null;
  location: string | null;
  headers: string;
  body: Buffer;
  size: number;
  sha256: string;
  fetched_at: string;
  elapsed_ms: number;
  title: string | null;
  canonical: string | null;
  robots: string | null;
  links_dropped: number;
  http_version: string | null;
  reason: string | null;
  raw_headers: Buffer | null;
  request_method: string | null;
  request_target: string | null;
  request_headers: Buffer | null;
  remote_ip: string | null;
  started_at: string | null;
  sha1: string | null;
  revalidated: number;
  truncated: string | null;
  request_body: Buffer | null;
  crawl?: number;
  outlinks?: string;
}

export function toPage(row: PageRow): ArchivedPage {
  const page: ArchivedPage = {
    url: row.url,
    fetchUrl: row.fetch_url,
    kind: row.kind,
    depth: row.depth,
    status: row.status,
    contentType: row.content_type,
    charset: row.charset,
    location: row.location,
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: bodyBytes(row.body, row.size),
    size: row.size,
    sha256: row.sha256,
    fetchedAt: row.fetched_at,
    elapsedMs: row.elapsed_ms,
    title: row.title,
    canonical: row.canonical,
    robots: row.robots,
    linksDropped: row.links_dropped,
    httpVersion: row.http_version,
    reason: row.reason,
    rawHeaders: row.raw_headers,
    requestMethod: row.request_method,
    requestTarget: row.request_target,
    requestHeaders: row.request_headers,
    remoteIp: row.remote_ip,
    startedAt: row.started_at,
    sha1: row.sha1,
    revalidated: row.revalidated === 1,
    truncated: row.truncated,
    requestBody: row.request_body,
    crawl: row.crawl ?? 1,
  };
  if (row.outlinks !== undefined) {
    const pairs = JSON.parse(row.outlinks) as Array<[string, LinkKind]>;
    page.outlinks = pairs.map(([url, kind]) => ({ url, kind }));
  }
  return page;
}

/** Links in order of their source, then target (both on indexes: streamed, no sort). */
export const LINKS_SQL = 'SELECT from_url AS fromUrl, to_url AS toUrl, kind, nofollow FROM links ORDER BY from_url, to_url';
export const LINKS_FROM_SQL = 'SELECT from_url AS fromUrl, to_url AS toUrl, kind, nofollow FROM links WHERE from_url = ? ORDER BY to_url';

export function toLink(row: Omit<ArchivedLink, 'nofollow'> & { nofollow: number }): ArchivedLink {
  return { ...row, nofollow: row.nofollow === 1 };
}

/**
 * URLs in URL order. `+state` keeps SQLite off the state index, which would
 * have it sort every matching row before the first came out: the url index
 * streams them instead.
 */
export const URLS_SQL = 'SELECT url, state, kind, depth, tries, error FROM urls ORDER BY url';
export const URLS_IN_STATE_SQL = 'SELECT url, state, kind, depth, tries, error FROM urls WHERE +state = ? ORDER BY url';
