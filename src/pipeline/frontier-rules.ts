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

/**
 * Whether claimOwn may take `key` over when it is known already as another
 * kind of URL: only an origin's robots.txt (a page may link to it). A hop of
 * robots.txt's redirects that is a page of the crawl (its home page, say)
 * stays a page, to be crawled as one; robots.txt is then read as absent.
 */
export function takenOverAsOwn(key: string): boolean {
  const url = new URL(key);
  return url.pathname === '/robots.txt' && url.search === '';
}

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
  find.crawl !== undefined &&
  row.crawl !== undefined &&
  (row.state === 'done' || row.state === 'failed') &&
  row.crawl < find.crawl &&
  find.queueable;

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

/*
 * The same rules as SQL, for both dialects. Each frontier names, in a `RuleColumns`, where a
 * statement finds what a rule looks at; the fragments are pasted into statements prepared once.
 */

export type Dialect = 'sqlite' | 'postgres';

/** Where a statement finds what the revision rules look at. */
export interface RuleColumns {
  dialect: Dialect;
  /** The stored row's columns, with their prefix: `url.`, `u.`, or '' where the statement names one table. */
  row: string;
  /** The find's depth. */
  depth: string;
  /** Whether the find would be queued were it new (no skip reason): a boolean expression. */
  queueable: string;
  /** The crawl of the run that found it; absent where the frontier serves one crawl (no re-crawl). */
  crawl?: string;
  /** The crawl's --max-depth, NULL for none (a comparison with NULL is never true). */
  maxDepth?: string;
}

/** A list of literals, for `IN (...)`. */
const literals = (values: readonly string[]) => values.map((value) => `'${value.replaceAll("'", "''")}'`).join(', ');

/** The least of two values: SQLite's scalar min(), PostgreSQL's least(). */
const least = (dialect: Dialect, a: string, b: string) => `${dialect === 'sqlite' ? 'min' : 'least'}(${a}, ${b})`;

export const upgradableSql = ({ row, queueable }: Pick<RuleColumns, 'row' | 'queueable'>): string =>
  `(${row}state = 'skipped' AND ${row}error_code IN (${literals(UPGRADABLE_SKIPS)}) AND ${queueable})`;

export const cutShortSql = ({ row, depth, maxDepth }: Pick<RuleColumns, 'row' | 'depth' | 'maxDepth'>): string =>
  maxDepth === undefined
    ? 'FALSE'
    : `(${row}state = 'done' AND ${row}kind = 'page' AND ${row}depth >= ${maxDepth} AND ${depth} < ${maxDepth})`;

/** Finished (done or failed) in a crawl before `crawl`. */
export const finishedBeforeSql = (row: string, crawl: string): string => `(${row}state IN ('done', 'failed') AND ${row}crawl < ${crawl})`;

export const revisitSql = ({ row, crawl, queueable }: Pick<RuleColumns, 'row' | 'crawl' | 'queueable'>): string =>
  crawl === undefined ? 'FALSE' : `(${finishedBeforeSql(row, crawl)} AND ${queueable})`;

/**
 * `revise` as SQL: `changes`, whether a find changes the stored row (the
 * upsert's or the lock's WHERE), and `assignments`, the SET list that
 * makes the change. Tries start again and the crawl is the finder's on a
 * revisit (a frontier that serves one crawl has neither).
 */
export function revisionSql(columns: RuleColumns): { changes: string; assignments: string } {
  const { dialect, row, depth, crawl } = columns;
  const upgrade = upgradableSql(columns);
  const revisit = revisitSql(columns);
  const cleared = crawl === undefined ? upgrade : `${upgrade} OR ${revisit}`;
  const queued = [upgrade, cutShortSql(columns), ...(crawl === undefined ? [] : [revisit])].join(' OR ');
  const when = (condition: string, then: string, column: string) =>
    `${column} = CASE WHEN ${condition} THEN ${then} ELSE ${row}${column} END`;
  const assignments = [
    `depth = ${least(dialect, `${row}depth`, depth)}`,
    when(queued, "'queued'", 'state'),
    ...(crawl === undefined ? [] : [when(revisit, '0', 'tries'), when(cleared, crawl, 'crawl')]),
    when(cleared, 'NULL', 'error_code'),
    when(cleared, 'NULL', 'error'),
  ];
  return { changes: `(${depth} < ${row}depth OR ${cleared})`, assignments: assignments.join(',\n') };
}

/** Whether claimOwn may take a URL known already: it is its own kind, or `takeOver` (a parameter: takenOverAsOwn of the key). */
export const ownClaimTakesSql = (row: string, takeOver: string): string => `(${row}kind = '${STORED_KIND}' OR ${takeOver})`;

/** What --max-pages counts, as a condition on a URL row. */
export const countedPageSql = (row = ''): string =>
  `(${row}kind = '${COUNTED_PAGE.kind}' AND ${row}state IN (${literals(COUNTED_PAGE.states)}))`;

/** URLs refused for an unavailable robots.txt, as a condition on a URL row. */
export const refusedForRobotsSql = (row = ''): string => `(${row}state = 'skipped' AND ${row}error_code = '${ROBOTS_UNAVAILABLE}')`;

/** Queues again the URLs refused for an unavailable robots.txt: of the origin `origin` names (a parameter), or all. */
export const requeueRefusedSql = (origin?: string): string =>
  `UPDATE url SET state = 'queued', error_code = NULL, error = NULL WHERE ${refusedForRobotsSql()}${origin === undefined ? '' : ` AND origin = ${origin}`}`;

/** A state's rank (0 first) as SQL: a state not ranked comes after all. */
export const stateRankSql = (state: string): string =>
  `CASE ${state} ${STATE_RANK.map((ranked, i) => `WHEN '${ranked}' THEN ${i}`).join(' ')} ELSE ${STATE_RANK.length} END`;
