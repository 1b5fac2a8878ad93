import type { Database } from 'better-sqlite3';
import type { UrlKind, UrlState } from '../pipeline/ports.js';

// One page of the archive's URLs, in URL order, for browsing. Paging is by key
// (`url > after`) on the url table's UNIQUE index: page 10,000 costs what page 1
// costs, with no OFFSET and no count. Filters narrow the rows met on that index
// instead of choosing another index, so rows always come out in URL order without
// a sort; a rare filter reads further along the index to fill its page.

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'none'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

export interface UrlListingFilter {
  /** Response status by hundreds; `none`: no response stored. */
  statusClass?: StatusClass;
  state?: UrlState;
  kind?: UrlKind;
  /** An origin (`https://example.com`, a range on the index) or a bare host (`example.com`, either scheme). */
  host?: string;
  /** Text the URL contains (case-sensitive). */
  text?: string;
}

export interface UrlListingRow {
  url: string;
  state: UrlState;
  kind: UrlKind;
  depth: number;
  error: string | null;
  status: number | null;
  contentType: string | null;
  size: number | null;
  fetchedAt: string | null;
}

export interface UrlListingPage {
  rows: UrlListingRow[];
  /** The key to pass as `after` for the next page; absent on the last page. */
  next?: string;
}

/** The statement and its parameters for one page; exported so a test can read its query plan. */
export function urlListingQuery(filter: UrlListingFilter, after: string, limit: number): { sql: string; params: Record<string, unknown> } {
  const where = ['u.url > :after'];
  const params: Record<string, unknown> = { after, limit };
  const { statusClass, state, kind, host, text } = filter;
  // coalesce keeps the LEFT JOIN a left join: were it made inner, SQLite could start
  // from response and sort; `+` keeps it off the state index, which would sort too.
  if (statusClass === 'none') where.push('r.url_id IS NULL');
  else if (statusClass !== undefined) {
    where.push('coalesce(r.status, 0) BETWEEN :statusMin AND :statusMax');
    const hundreds = Number(statusClass[0]) * 100;
    Object.assign(params, { statusMin: hundreds, statusMax: hundreds + 99 });
  }
  if (state !== undefined) {
    where.push('+u.state = :state');
    params.state = state;
  }
  if (kind !== undefined) {
    where.push('+u.kind = :kind');
    params.kind = kind;
  }
  if (host !== undefined && host.includes('://')) {
    // Stored URLs are serialised (ASCII), so all of an origin's sort below origin/ + U+10FFFF.
    const origin = host.replace(/\/+$/, '');
    where.push('u.url >= :hostFrom AND u.url < :hostTo');
    Object.assign(params, { hostFrom: `${origin}/`, hostTo: `${origin}/\u{10FFFF}` });
  } else if (host !== undefined) {
    where.push("+u.origin IN ('http://' || :host, 'https://' || :host)");
    params.host = host.toLowerCase();
  }
  if (text !== undefined && text !== '') {
    where.push('instr(u.url, :text) > 0');
    params.text = text;
  }
  const sql = `SELECT u.url, u.state, u.kind, u.depth, u.error, r.status, r.content_type AS contentType, b.size, r.fetched_at AS fetchedAt
    FROM url u LEFT JOIN response r ON r.url_id = u.id LEFT JOIN body b ON b.id = r.body_id
    WHERE ${where.join(' AND ')}
    ORDER BY u.url LIMIT :limit`;
  return { sql, params };
}

/** Up to `limit` URLs after `after` (exclusive; '' for the first page) that pass `filter`. */
export function listUrls(db: Database, filter: UrlListingFilter, { after = '', limit }: { after?: string; limit: number }): UrlListingPage {
  // One row more than shown says whether there is a next page, without counting.
  const { sql, params } = urlListingQuery(filter, after, limit + 1);
  const rows = db.prepare<[Record<string, unknown>], UrlListingRow>(sql).all(params);
  if (rows.length <= limit) return { rows };
  rows.length = limit;
  return { rows, next: rows.at(-1)!.url };
}
