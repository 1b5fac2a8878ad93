import type { Database } from 'better-sqlite3';
import { UrlRows } from '../writer/url-rows.js';

/** The crawl number of the archive's latest run (imports count as crawl 1); undefined when it has none. */
export function latestCrawl(db: Database): number | undefined {
  return db.prepare<[], { crawl: number | null }>('SELECT max(crawl) AS crawl FROM run').get()?.crawl ?? undefined;
}

/** URLs the last run left queued or in flight: a crawl that has them is not finished. */
export function unfinishedUrls(db: Database): number {
  return db.prepare<[], { n: number }>("SELECT count(*) AS n FROM url WHERE state IN ('queued', 'fetching')").get()!.n;
}

/**
 * Queues the URLs an earlier crawl finished (done or failed) again for crawl
 * `crawl`, with fresh tries: all of them, or only those keyed in `only` (the
 * roots, for --only-linked). robots.txt is always queued again, so its rules
 * are fresh. Returns how many were queued.
 */
export function queueRecrawl(db: Database, crawl: number, only?: readonly string[]): number {
  return new UrlRows(db).requeueFinished(crawl, only);
}
