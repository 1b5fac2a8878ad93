import type { Database } from 'better-sqlite3';
import { finishedBeforeSql } from '../../pipeline/frontier-rules.js';

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
  const set = `UPDATE url SET state = 'queued', tries = 0, error_code = NULL, error = NULL, crawl = ${Math.trunc(crawl)}`;
  const finished = finishedBeforeSql('', String(Math.trunc(crawl)));
  if (!only) return db.prepare(`${set} WHERE ${finished}`).run().changes;
  const robots = db.prepare(`${set} WHERE kind = 'robots' AND ${finished}`).run().changes;
  const one = db.prepare<[string]>(`${set} WHERE url = ? AND ${finished}`);
  return only.reduce((queued, key) => queued + one.run(key).changes, robots);
}
