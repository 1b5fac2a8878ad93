import type { UrlKind, UrlState } from './ports.js';

/**
 * The frontier's rules, stated once. Every frontier obeys them: the SQLite
 * one and the PostgreSQL one build their SQL from the fragments below (each
 * names its own columns and parameters in a `RuleColumns`), and `revise`
 * states the same rules over plain values, for counting what a commit changed.
 */

/** Skip codes that say only how a URL was found, not what it is: a better way of finding it queues it. */
export const UPGRADABLE_SKIPS: readonly string[] = ['max_depth', 'nofollow'];

/** The skip code of a URL refused because its origin's robots.txt could not be had; queued again when it can. */
export const ROBOTS_UNAVAILABLE = 'robots_unavailable';

/** What --max-pages counts: URLs of this kind in these states (no requisite, sitemap or robots.txt; nothing skipped or queued). */
export const COUNTED_PAGE: { kind: UrlKind; states: readonly UrlState[] } = { kind: 'page', states: ['done', 'failed'] };

/** The kind of URL whose stored answer the frontier gives back (robots.txt and the hops of its redirects). */
export const STORED_KIND: UrlKind = 'robots';

/** Finished states, most finished first: where two records of one URL disagree, the one ranked first wins. */
export const STATE_RANK: readonly UrlState[] = ['done', 'failed', 'skipped'];

/** A URL as the frontier holds it, as far as the rules look. */
export interface KnownUrl {
  state: UrlState;
  kind: UrlKind;
  depth: number;
  /** The skip or failure code; null when none. */
  code: string | null;
  /** The crawl that last queued it (a re-crawl's URLs are of a later crawl than the first's). */
  crawl?: number;
}

/** A URL found again by a page. */
export interface Find {
  depth: number;
  /** Found by a way the crawl follows (no skip reason): it would be queued if new. */
  queueable: boolean;
  /** The crawl of the run that found it. */
  crawl?: number;
}

/** A URL skipped only for how it was found, found by a way that allows it. */
export const isUpgradable = (row: KnownUrl, find: Find): boolean =>
  row.state === 'skipped' && row.code !== null && UPGRADABLE_SKIPS.includes(row.code) && find.queueable;

/** A page fetched at --max-depth had its links cut: found within the limit, it is fetched again. */
export const isCutShort = (row: KnownUrl, find: Find, maxDepth: number | undefined): boolean =>
  maxDepth !== undefined && row.state === 'done' && row.kind === 'page' && row.depth >= maxDepth && find.depth < maxDepth;

/** A re-crawl fetches again a URL an earlier crawl finished, when a page of this crawl links to it: once per crawl. */
export const isRevisit = (row: KnownUrl, find: Find): boolean =>
  find.crawl !== undefined && row.crawl !== undefined && (row.state === 'done' || row.state === 'failed') && row.crawl < find.crawl && find.queueable;

/**
 * The row after a find of a URL known already, or undefined when the find
 * changes nothing: it keeps the least depth, is queued if it was skipped
 * only for how it was found, cut short at --max-depth or finished in an
 * earlier crawl. A find that changes the row counts in a commit's newUrls.
 */
export function revise(row: KnownUrl, find: Find, maxDepth?: number): KnownUrl | undefined {
  const upgrade = isUpgradable(row, find);
  const revisit = isRevisit(row, find);
  if (!(find.depth < row.depth || upgrade || revisit)) return undefined;
  const next: KnownUrl = { ...row, depth: Math.min(row.depth, find.depth) };
  if (upgrade || revisit || isCutShort(row, find, maxDepth)) next.state = 'queued';
  if (upgrade || revisit) {
    next.code = null;
    if (find.crawl !== undefined) next.crawl = find.crawl;
  }
  return next;
}
