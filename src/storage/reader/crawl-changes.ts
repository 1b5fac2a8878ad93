import type { Database } from 'better-sqlite3';
import { CrawliteError } from '../../crawlite-error.js';
import { bodyBytes } from '../archive/body-bytes.js';
import { CHANGE_KINDS, type ChangeKind, type CrawlChange } from './reader-types.js';

export { CHANGE_KINDS, type ChangeKind, type CrawlChange };

// What changed between two crawls of an archive: the `changes` view's logic
// (migrations/0007_captures.sql) with the two crawls as parameters. Keep the
// two in step; a test checks they agree for the view's crawls.

/** A crawl number the archive does not have, or an archive from before captures were kept. */
export class CrawlNumberError extends CrawliteError {
  constructor(message: string) {
    super('BAD_CRAWL', message);
  }
}

/** A URL that `crawlite diff --url` cannot compare: not in the archive, or not captured in a crawl asked for. */
export class NotCapturedError extends CrawliteError {
  constructor(message: string) {
    super('NOT_CAPTURED', message);
  }
}

export const CHANGES_SQL = `
WITH last AS (
  SELECT c.url, c.crawl, c.status, c.sha256, c.location, c.revalidated, c.fetched_at,
         row_number() OVER (PARTITION BY c.url, c.crawl ORDER BY c.fetched_at DESC) AS n
  FROM captures c
  -- A URL's page is told by its GETs, as the changes view tells it: a POST's answer is not the page.
  WHERE c.crawl IN (:from, :to) AND coalesce(upper(c.request_method), 'GET') = 'GET'
),
a AS (SELECT l.* FROM last l WHERE l.n = 1 AND l.crawl = :from),
b AS (SELECT l.* FROM last l WHERE l.n = 1 AND l.crawl = :to)
SELECT b.url,
       CASE
         WHEN a.url IS NULL THEN 'new'
         WHEN b.status IN (404, 410) AND a.status NOT IN (404, 410) THEN 'gone'
         WHEN b.status BETWEEN 300 AND 399 AND (a.status NOT BETWEEN 300 AND 399 OR b.location IS NOT a.location) THEN 'redirected'
         WHEN b.revalidated = 1 OR b.sha256 = a.sha256 THEN 'unchanged'
         ELSE 'changed'
       END AS change,
       :from AS from_crawl, :to AS to_crawl,
       a.status AS from_status, b.status AS to_status, a.sha256 AS from_sha256, b.sha256 AS to_sha256,
       a.fetched_at AS from_fetched_at, b.fetched_at AS to_fetched_at
FROM b LEFT JOIN a ON a.url = b.url
UNION ALL
SELECT a.url, 'gone', :from, :to, a.status, NULL, a.sha256, NULL, a.fetched_at, NULL
FROM a
WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.url = a.url)
ORDER BY 1`;

/** The crawl numbers the archive holds, in order; refuses an archive without the captures view. */
export function crawlNumbers(db: Database, path: string): number[] {
  const hasCaptures = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'view' AND name = 'captures'").get() !== undefined;
  if (!hasCaptures)
    throw new CrawlNumberError(`${path} keeps one capture per URL (made by an older crawlite); run crawlite resume or recrawl on it first`);
  return db
    .prepare<[], { crawl: number }>('SELECT DISTINCT crawl FROM run ORDER BY crawl')
    .all()
    .map((row) => row.crawl);
}

/**
 * The two crawls to compare: `to` defaults to the latest, `from` to the one before `to`.
 * Refuses numbers the archive does not hold, and an archive of one crawl without --from.
 */
export function resolveCrawls(db: Database, path: string, asked: { from?: number; to?: number }): { from: number; to: number } {
  const crawls = crawlNumbers(db, path);
  const held = `${path} holds crawl${crawls.length === 1 ? '' : 's'} ${crawls.length ? crawls.join(', ') : 'none'}`;
  const check = (flag: string, n: number) => {
    if (!crawls.includes(n)) throw new CrawlNumberError(`--${flag} ${n}: no such crawl; ${held}`);
  };
  if (asked.to !== undefined) check('to', asked.to);
  if (asked.from !== undefined) check('from', asked.from);
  const to = asked.to ?? crawls[crawls.length - 1];
  if (to === undefined) throw new CrawlNumberError(`${held}; crawl a site into it first`);
  const from = asked.from ?? [...crawls].reverse().find((n) => n < to);
  if (from === undefined) throw new CrawlNumberError(`no crawl before crawl ${to} to compare it with; ${held}`);
  return { from, to };
}

/** Every URL captured in either crawl with what became of it, in URL order. */
export function crawlChanges(db: Database, from: number, to: number): CrawlChange[] {
  return db.prepare<{ from: number; to: number }, CrawlChange>(CHANGES_SQL).all({ from, to });
}

/** One capture's content, as `crawlite diff --url` compares it. */
export interface CapturedContent {
  url: string;
  crawl: number;
  fetched_at: string;
  status: number;
  content_type: string | null;
  charset: string | null;
  revalidated: number;
  body: Buffer;
}

/** Whether the archive holds the URL (its key, as in `pages.url`) at all. */
export const holdsUrl = (db: Database, url: string): boolean => db.prepare('SELECT 1 FROM pages WHERE url = ?').get(url) !== undefined;

/** The URL's last capture in one crawl, if it was captured in it. */
export function captureInCrawl(db: Database, url: string, crawl: number): CapturedContent | undefined {
  const row = db
    .prepare<[string, number], CapturedContent & { size: number }>(
      `SELECT url, crawl, fetched_at, status, content_type, charset, revalidated, body, size FROM captures
       WHERE url = ? AND crawl = ? ORDER BY fetched_at DESC LIMIT 1`,
    )
    .get(url, crawl);
  return row && { ...row, body: bodyBytes(row.body, row.size) };
}
