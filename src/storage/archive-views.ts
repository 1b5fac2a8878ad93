import type { LinkKind, UrlKind, UrlState } from '../pipeline/ports.js';

// The rows of the stable views (pages, links, urls) as typed objects, and the
// one SELECT each is read with. Only the views are read, never the tables
// under them, so what a reader returns is what the README documents.

export type { LinkKind, UrlKind, UrlState };

/** A row of the `pages` view: the latest HTTP response of one URL, any status, with its body. */
export interface ArchivedPage {
  /** The URL fetched, normalised: the archive's key for it. */
  url: string;
  /** The URL as requested (its first spelling, WHATWG-serialised); usually the same as `url`. */
  fetchUrl: string;
  kind: UrlKind;
  /** Link distance from a root (roots are 0). */
  depth: number;
  status: number;
  contentType: string | null;
  /** The encoding the body was decoded with to find its links. */
  charset: string | null;
  /** The Location header of a redirect. */
  location: string | null;
  /** Lower-case names; repeated headers joined with ", " (set-cookie and location with "\n"). */
  headers: Record<string, string>;
  /** The bytes received, after Content-Encoding was undone. */
  body: Buffer;
  size: number;
  /** SHA-256 of the body, lower-case hex. */
  sha256: string;
  /** ISO 8601 UTC. */
  fetchedAt: string;
  elapsedMs: number;
  title: string | null;
  canonical: string | null;
  /** Directives of `<meta name="robots">`, comma-separated. */
  robots: string | null;
  /** Link references not read because of --max-links-per-page; 0 when all were read. */
  linksDropped: number;
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

/** Pages in URL order (the url index: streamed, no sort), narrowed by `filter`. */
export function pagesQuery(filter: PageFilter = {}): { sql: string; params: Record<string, unknown> } {
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
  const sql = `SELECT ${PAGE_COLUMNS} FROM pages ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY url`;
  return { sql, params };
}

/** One page by its URL (the archive's key, as in `pages.url`). */
export const PAGE_SQL = `SELECT ${PAGE_COLUMNS} FROM pages WHERE url = ?`;

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
}

export function toPage(row: PageRow): ArchivedPage {
  return {
    url: row.url,
    fetchUrl: row.fetch_url,
    kind: row.kind,
    depth: row.depth,
    status: row.status,
    contentType: row.content_type,
    charset: row.charset,
    location: row.location,
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: row.body,
    size: row.size,
    sha256: row.sha256,
    fetchedAt: row.fetched_at,
    elapsedMs: row.elapsed_ms,
    title: row.title,
    canonical: row.canonical,
    robots: row.robots,
    linksDropped: row.links_dropped,
  };
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
