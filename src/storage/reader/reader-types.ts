// What an archive's reports, searches and queries give back and take, declared apart from the code
// that runs them: the package's published declarations import these, and must not need the
// SQLite driver's types (a devDependency, absent from a user's install).

export interface ArchiveReport {
  urls: { done: number; failed: number; skipped: number; queued: number; fetching: number; total: number };
  byStatus: { status: number; count: number }[];
  errors: { code: string; count: number }[];
  skips: { code: string; count: number }[];
  pages: number;
  htmlBytes: number;
  otherBytes: number;
  /** Link references left unread by the per-response cap (--max-links-per-page), and on how many responses. */
  linksDropped: { links: number; responses: number };
  /** Renders (crawl --browser) that ran into a bound, by bound (`time`, `network-idle`, `scroll`, `screenshot`): the view render_notes. */
  renderNotes: { code: string; count: number }[];
  /** Responses fetched and stored (pages, requisites, robots.txt, sitemaps), in the run asked for or in all crawl runs (imports not included). */
  fetched: number;
  /** Of those, responses to URLs of kind `page`: what --max-pages counts. */
  pagesFetched: number;
  /** The time the crawl runs covered: runs at the same time (merged workers) counted once, the gaps between runs not at all. */
  elapsedMs: number;
  /** Crawl runs (crawl, resume, recrawl, workers). */
  runs: number;
  /** Responses stored by `import` runs (read from WARC files, not fetched), and of those the ones of kind `page`. */
  imported: number;
  pagesImported: number;
  /** The time the import runs covered, counted as `elapsedMs` is. */
  importMs: number;
  importRuns: number;
  /** The archive is one worker's shard of a crawl on a shared frontier: URLs queued here may be done in other shards. */
  shard: boolean;
}

export interface RootState {
  url: string;
  /** Absent when the root is not in the archive at all. */
  state?: 'queued' | 'fetching' | 'done' | 'failed' | 'skipped';
  error?: string;
  /** The HTTP status of the root's latest response, if it has one. */
  status?: number;
  /** Where the root's redirects led: the last URL of the chain the archive holds, when the root redirected. */
  redirectedTo?: Omit<RootState, 'redirectedTo'>;
}

export interface SearchHit {
  url: string;
  title: string | null;
  snippet: string;
  /** Lower is better (search-ranking.ts). */
  rank: number;
  fetchedAt: string;
  status: number;
  /** The heading of the part of the page that answered best; null when parts were not weighed. */
  section: string | null;
}

/**
 * How the query is read: 'typed' (the default) takes words and "quoted phrases" as typed, punctuation
 * and all, and is never a syntax error (search-as-typed.ts); 'fts' is FTS5's own query syntax
 * (OR, NOT, NEAR, column:, prefix*), whose mistakes are SearchQueryErrors.
 */
export type SearchMode = 'typed' | 'fts';

export interface SearchOptions {
  limit: number;
  mode?: SearchMode;
  offset?: number;
  markStart?: string;
  markEnd?: string;
}

/** Values for the statement's `?` (an array) or `:name` (an object) parameters. */
export type QueryParams = readonly unknown[] | Readonly<Record<string, unknown>>;

export interface ReadOnlyQuery {
  columns: string[];
  /** Rows as arrays of cells, read from SQLite one at a time; a failure while reading is a QueryRefusedError. */
  rows: Iterable<unknown[]>;
}

/** What a browser crawl saw of a page capture: an image, and the type stored with it (check it: see screenshotType). */
export interface Screenshot {
  type: string;
  data: Buffer;
}

/** How a URL changed between two crawls, as the `changes` view says (every kind, in the order a report lists them). */
export type ChangeKind = 'new' | 'changed' | 'unchanged' | 'redirected' | 'gone';
export const CHANGE_KINDS: readonly ChangeKind[] = ['new', 'changed', 'unchanged', 'redirected', 'gone'];

/** One URL of either crawl, and how it changed. */
export interface CrawlChange {
  url: string;
  change: ChangeKind;
  from_crawl: number;
  to_crawl: number;
  from_status: number | null;
  to_status: number | null;
  from_sha256: string | null;
  to_sha256: string | null;
  from_fetched_at: string | null;
  to_fetched_at: string | null;
}

/** A page `crawlite qa` replays: the latest capture of an HTML page. */
export interface QaPage {
  urlId: number;
  url: string;
  fetchedAt: string;
}

/** What was stored at capture to hold a replay against. */
export interface QaPageMaterial {
  /** The picture a browser crawl took (an image type crawlite reads). */
  screenshot?: { type: 'image/webp' | 'image/png' | 'image/jpeg'; data: Buffer };
  /** The page's text as the crawl extracted it (page_text.body). */
  text?: string;
}

/** One page's replay score, as the `qa` view holds it. */
export interface QaRow {
  url: string;
  fetchedAt: string;
  pixelDiff: number | null;
  textMatch: number | null;
  resourcesLoaded: number;
  resourcesFailed: number;
  score: number;
  error: string | null;
  checkedAt: string;
}

/** The scores stored in an archive, summed up. */
export interface QaTotals {
  checked: number;
  mean: number | null;
  median: number | null;
  /** Pages scoring below the threshold asked about. */
  below: number;
}

/** A capture's stored Markdown (migration 18). */
export interface StoredMarkdown {
  url: string;
  fetchedAt: string;
  title: string | null;
  markdown: string;
  /** Why the Markdown is empty though the page is not; null otherwise. */
  reason: string | null;
}
