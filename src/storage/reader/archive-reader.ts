import type { Database, Statement } from 'better-sqlite3';
import { archiveReport } from './archive-report.js';
import {
  captureAtSql,
  CAPTURE_TIMES_SQL,
  CAPTURES_WITHOUT_PAGE_SQL,
  earlierCapturesSql,
  LINKS_FROM_SQL,
  LINKS_SQL,
  pageSql,
  pagesQuery,
  REQUEST_CAPTURE_SQL,
  SHARED_BODIES_SQL,
  toCaptureTime,
  toLink,
  toPage,
  URLS_IN_STATE_SQL,
  URLS_SQL,
  URLS_WITHOUT_RESPONSE_SQL,
  wireRecordedSql,
  type ArchivedLink,
  type ArchivedPage,
  type ArchivedUrl,
  type CaptureTime,
  type PageFilter,
  type PageRow,
  type UrlState,
} from './archive-views.js';
import { CrawlRecord } from '../crawl-state/crawl-record.js';

/** One crawl: its number, when its first run started and its last one ended, and how that one ended (null: it did not). */
export interface ArchivedCrawl {
  crawl: number;
  startedAt: string;
  endedAt: string | null;
  endedBy: string | null;
}

const CRAWLS_SQL = `SELECT crawl, min(started_at) AS startedAt,
    (SELECT l.ended_at FROM run l WHERE l.crawl = run.crawl ORDER BY l.started_at DESC, l.id DESC LIMIT 1) AS endedAt,
    (SELECT l.ended_by FROM run l WHERE l.crawl = run.crawl ORDER BY l.started_at DESC, l.id DESC LIMIT 1) AS endedBy
  FROM run GROUP BY crawl ORDER BY crawl`;
import { explainOpenError, openArchive as openArchiveFile } from '../archive/open-archive.js';
import { prepareReadOnlyQuery } from '../query/read-only-query.js';
// Types from reader-types.ts, not from the modules above: the published declarations must not reach the driver's.
import type { ArchiveReport, QueryParams, ReadOnlyQuery, Screenshot, SearchHit, SearchOptions } from './reader-types.js';
import { searchArchive } from '../query/search-archive.js';
import { QUERY_VARIANTS_SQL, queryVariantsParams } from './query-variants.js';
import { pageTextLookup } from './page-text.js';
import { markdownLookup } from './page-markdown.js';
import type { StoredMarkdown } from './reader-types.js';
import { screenshotLookup } from './screenshots.js';

/** One pass over the url table, read again only when replay meets a host it cannot place. */
const ORIGINS_SQL = `SELECT DISTINCT origin FROM url WHERE origin <> ''`;

export type { ArchiveReport, QueryParams, ReadOnlyQuery, Screenshot, SearchHit, SearchOptions };
export type { ArchivedLink, ArchivedPage, ArchivedUrl, CaptureTime, LinkKind, PageFilter, UrlKind, UrlState } from './archive-views.js';

/**
 * A crawlite archive opened for reading. Every read goes through the stable
 * views (pages, links, urls), so it means the same whatever the tables under
 * them become.
 *
 * The iterators stream: one row is in memory at a time, however big the
 * archive, and each reads one consistent snapshot of it, even while a crawl
 * is writing. Breaking out of a `for...of` ends the read; `close()` ends any
 * read still open.
 */
export interface ArchiveReader {
  readonly path: string;
  /**
   * The stored responses with their bodies, in URL order, narrowed by `filter`;
   * with `outlinks`, each page's links come with it.
   */
  pages(filter?: PageFilter, options?: { outlinks?: boolean }): IterableIterator<ArchivedPage>;
  /** The stored response of one URL (its archive key, as in `pages.url`), if it has one. */
  page(url: string): ArchivedPage | undefined;
  /**
   * The captures of one URL (its archive key) before its latest, oldest first: what re-crawls
   * replaced. None in an archive of one crawl, or of a schema before 7.
   */
  earlierCaptures(url: string): IterableIterator<ArchivedPage>;
  /** Captures of URLs with no page (all of requests other than GET, as an imported POST), by URL then time. */
  capturesWithoutPage(): IterableIterator<ArchivedPage>;
  /** Every capture of one URL, oldest first, without bodies; the latest alone in an archive of a schema before 7. */
  captureTimes(url: string): CaptureTime[];
  /** The URL's capture made at `fetchedAt` (as in captureTimes), if there is one. */
  captureAt(url: string, fetchedAt: string): ArchivedPage | undefined;
  /**
   * The URL's capture of a request of `method` (other than GET: an imported POST) that sent exactly `body`,
   * the nearest `near` (ISO 8601) if there are several; none in an archive of a schema before 11.
   */
  requestCapture(url: string, method: string, body: Buffer, near: string): ArchivedPage | undefined;
  /**
   * The archive's URLs (keys) with a stored response that are `bare` (a URL without query) with any
   * query or none, the bare one first, at most QUERY_VARIANTS_LIMIT: what replay's fuzzy match picks from.
   */
  queryVariants(bare: string): string[];
  /** The origins (`scheme://host[:port]`) of the URLs the archive knows: what replay's per-origin hosts are read back through. */
  origins(): string[];
  /**
   * The screenshot a browser crawl stored of the capture of `url` (its archive key) made at `fetchedAt`
   * (as in captureTimes), if any; none in an archive of a schema before 12. Its type is as stored.
   */
  screenshot(url: string, fetchedAt: string): Screenshot | undefined;
  /** The visible text search indexes of the page at `url` (its archive key), if any (an HTML page's; none before schema 6). */
  pageText(url: string): string | undefined;
  /** A capture's Markdown (the latest capture's without `fetchedAt`), once `crawlite markdown` has made it; undefined otherwise. */
  markdown(url: string, fetchedAt?: string): StoredMarkdown | undefined;
  /** Every link found, or those found on one URL, in order of source then target. */
  links(fromUrl?: string): IterableIterator<ArchivedLink>;
  /** Every URL seen, or those in one state, in URL order. */
  urls(state?: UrlState): IterableIterator<ArchivedUrl>;
  /** URLs in one state with no stored response (failed before any answer, say), in URL order. */
  urlsWithoutResponse(state: UrlState): IterableIterator<ArchivedUrl>;
  /** How many stored responses have their header block and their request as received and sent (none before schema 5). */
  wireRecorded(): { responses: number; rawHeaders: number; requestHeaders: number };
  /** SHA-256 (hex) of each body stored for more than one response. */
  sharedBodies(): Set<string>;
  /** The archive's crawls in order, each from its first run's start to its last run's end (how that run ended). */
  crawls(): ArchivedCrawl[];
  /** The crawl's roots and options as saved in the archive, if a crawl was ever started in it. */
  crawlDefinition(): { roots: string[]; options: Record<string, unknown> } | undefined;
  /**
   * Runs `read` inside one read transaction: everything it reads through this
   * reader, across awaits, sees the same snapshot, even while a crawl writes.
   */
  snapshot<T>(read: () => Promise<T>): Promise<T>;
  /** What a crawl reports at its end, over all its runs: what `crawlite stats` prints. */
  report(): ArchiveReport;
  /**
   * Prepares one SQL statement that only reads; writes, ATTACH, DETACH,
   * VACUUM and several statements are refused with a QueryRefusedError.
   * It runs when `rows` is iterated, in this process, without a time limit.
   */
  query(sql: string, params?: QueryParams): ReadOnlyQuery;
  /**
   * Full-text search of the pages' text (words and "a phrase" as typed; with mode 'fts', FTS5 syntax:
   * OR, NOT, prefix*), best first; see searchArchive. A malformed FTS5 query throws a SearchQueryError.
   */
  search(query: string, options: SearchOptions): SearchHit[];
  /** Ends any read still open and closes the file. Calling it again does nothing. */
  close(): void;
}

/**
 * Opens an archive read-only: nothing is ever written to it, and a crawl may
 * be writing it at the same time. A file that is missing, not a crawlite
 * archive, empty or from a newer crawlite is refused with an ArchivePathError,
 * NotAnArchiveError or NewerSchemaError; damage met while reading is a
 * CorruptArchiveError.
 */
export function openArchive(path: string): ArchiveReader {
  return new SqliteArchiveReader(path, openArchiveFile(path, 'readonly'));
}

class SqliteArchiveReader implements ArchiveReader {
  /** Reads begun and not finished: better-sqlite3 will not close a connection while one is open. */
  private readonly reading = new Set<Iterator<unknown>>();
  /** Statements prepared once per SQL (see prepared). */
  private readonly statements = new Map<string, Statement>();
  /** The pages view's columns: an archive of an older schema lacks the newer ones. */
  private viewColumns: Set<string> | undefined;
  /** The screenshot lookup, once asked for; null in an archive without screenshots (a schema before 12). */
  private screenshots: ReturnType<typeof screenshotLookup> | null | undefined;
  /** The page text lookup, once asked for; null in an archive without page_text. */
  private texts: ReturnType<typeof pageTextLookup> | null | undefined;
  /** The Markdown lookup, once asked for; null in an archive without the markdown table. */
  private markdowns: ReturnType<typeof markdownLookup> | null | undefined;

  constructor(
    readonly path: string,
    private readonly db: Database,
  ) {}

  pages(filter?: PageFilter, options: { outlinks?: boolean } = {}): IterableIterator<ArchivedPage> {
    const { sql, params } = pagesQuery(filter, { viewColumns: this.pageViewColumns(), outlinks: options.outlinks ?? false });
    return this.rows(sql, params, toPage);
  }

  page(url: string): ArchivedPage | undefined {
    const row = this.explained(() => this.db.prepare<[string], PageRow>(pageSql(this.pageViewColumns())).get(url));
    return row && toPage(row);
  }

  earlierCaptures(url: string): IterableIterator<ArchivedPage> {
    if (!this.pageViewColumns().has('revalidated')) return [][Symbol.iterator]();
    return this.rows(earlierCapturesSql(this.pageViewColumns()), [url], toPage);
  }

  capturesWithoutPage(): IterableIterator<ArchivedPage> {
    if (!this.pageViewColumns().has('truncated')) return [][Symbol.iterator]();
    return this.rows(CAPTURES_WITHOUT_PAGE_SQL, [], toPage);
  }

  captureTimes(url: string): CaptureTime[] {
    if (!this.pageViewColumns().has('revalidated')) {
      const page = this.page(url);
      return page
        ? [{ crawl: 1, fetchedAt: page.fetchedAt, status: page.status, revalidated: false, sha256: page.sha256, latest: true }]
        : [];
    }
    return this.explained(() =>
      this.db.prepare<[string], Parameters<typeof toCaptureTime>[0]>(CAPTURE_TIMES_SQL).all(url).map(toCaptureTime),
    );
  }

  captureAt(url: string, fetchedAt: string): ArchivedPage | undefined {
    if (!this.pageViewColumns().has('revalidated')) {
      const page = this.page(url);
      return page?.fetchedAt === fetchedAt ? page : undefined;
    }
    const row = this.explained(() => this.db.prepare<[string, string], PageRow>(captureAtSql(this.pageViewColumns())).get(url, fetchedAt));
    return row && toPage(row);
  }

  requestCapture(url: string, method: string, body: Buffer, near: string): ArchivedPage | undefined {
    if (!this.pageViewColumns().has('truncated')) return undefined;
    const params = { url, method: method.toUpperCase(), body, at: near };
    const row = this.explained(() => this.db.prepare<[typeof params], PageRow>(REQUEST_CAPTURE_SQL).get(params));
    return row && toPage(row);
  }

  queryVariants(bare: string): string[] {
    const params = queryVariantsParams(bare);
    return this.explained(() =>
      this.db
        .prepare<[typeof params], { url: string }>(QUERY_VARIANTS_SQL)
        .all(params)
        .map((row) => row.url),
    );
  }

  origins(): string[] {
    return this.explained(() =>
      this.db
        .prepare<[], { origin: string }>(ORIGINS_SQL)
        .all()
        .map((row) => row.origin),
    );
  }

  screenshot(url: string, fetchedAt: string): Screenshot | undefined {
    if (this.screenshots === undefined) this.screenshots = this.explained(() => screenshotLookup(this.db)) ?? null;
    const lookup = this.screenshots;
    return lookup ? this.explained(() => lookup(url, fetchedAt)) : undefined;
  }

  pageText(url: string): string | undefined {
    if (this.texts === undefined) this.texts = this.explained(() => pageTextLookup(this.db)) ?? null;
    const lookup = this.texts;
    return lookup ? this.explained(() => lookup(url)) : undefined;
  }

  markdown(url: string, fetchedAt?: string): StoredMarkdown | undefined {
    if (this.markdowns === undefined) this.markdowns = this.explained(() => markdownLookup(this.db)) ?? null;
    const lookup = this.markdowns;
    return lookup ? this.explained(() => lookup(url, fetchedAt)) : undefined;
  }

  urlsWithoutResponse(state: UrlState): IterableIterator<ArchivedUrl> {
    return this.rows(URLS_WITHOUT_RESPONSE_SQL, [state], (row: ArchivedUrl) => row);
  }

  wireRecorded(): { responses: number; rawHeaders: number; requestHeaders: number } {
    const sql = wireRecordedSql(this.pageViewColumns());
    return this.explained(() => this.db.prepare<[], { responses: number; rawHeaders: number; requestHeaders: number }>(sql).get()!);
  }

  sharedBodies(): Set<string> {
    const rows = this.explained(() => this.db.prepare<[], { sha256: string }>(SHARED_BODIES_SQL).all());
    return new Set(rows.map((row) => row.sha256));
  }

  crawls(): ArchivedCrawl[] {
    return this.explained(() => this.db.prepare<[], ArchivedCrawl>(CRAWLS_SQL).all());
  }

  crawlDefinition(): { roots: string[]; options: Record<string, unknown> } | undefined {
    const record = new CrawlRecord(this.db);
    const roots = this.explained(() => record.roots());
    return roots && { roots, options: this.explained(() => record.options()) ?? {} };
  }

  async snapshot<T>(read: () => Promise<T>): Promise<T> {
    if (this.db.inTransaction) return read();
    this.db.exec('BEGIN');
    try {
      return await read();
    } finally {
      if (this.db.open && this.db.inTransaction) this.db.exec('COMMIT');
    }
  }

  links(fromUrl?: string): IterableIterator<ArchivedLink> {
    return fromUrl === undefined ? this.rows(LINKS_SQL, [], toLink) : this.rows(LINKS_FROM_SQL, [fromUrl], toLink);
  }

  urls(state?: UrlState): IterableIterator<ArchivedUrl> {
    const same = (row: ArchivedUrl) => row;
    return state === undefined ? this.rows(URLS_SQL, [], same) : this.rows(URLS_IN_STATE_SQL, [state], same);
  }

  report(): ArchiveReport {
    // Damage inside the file shows only when the report reads the damaged page.
    return this.explained(() => archiveReport(this.db));
  }

  query(sql: string, params?: QueryParams): ReadOnlyQuery {
    const query = prepareReadOnlyQuery(this.db, sql, params);
    return { columns: query.columns, rows: this.track(query.rows) };
  }

  search(query: string, options: SearchOptions): SearchHit[] {
    return this.explained(() => searchArchive(this.db, query, options));
  }

  close(): void {
    if (!this.db.open) return;
    for (const read of [...this.reading]) read.return?.();
    this.reading.clear();
    this.db.close();
  }

  private pageViewColumns(): Set<string> {
    this.viewColumns ??= new Set(
      this.explained(() => this.db.pragma('table_info(pages)') as Array<{ name: string }>).map((column) => column.name),
    );
    return this.viewColumns;
  }

  /** Runs a read, turning SQLite's complaints about the file (corruption) into errors that say so. */
  private explained<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      return explainOpenError(this.path, error);
    }
  }

  /**
   * A statement for the SQL, prepared once: an export asks for each URL's earlier captures, and preparing
   * that view's statement cost more than running it. One being iterated is busy: a nested read gets its own.
   */
  private prepared(sql: string): Statement {
    const cached = this.statements.get(sql);
    if (cached && !cached.busy) return cached;
    const statement = this.db.prepare(sql);
    if (!cached) this.statements.set(sql, statement);
    return statement;
  }

  /** Streams a statement's rows through `map`; the statement is prepared now, so bad SQL fails here. */
  private rows<Row, T>(sql: string, params: QueryParams, map: (row: Row) => T): IterableIterator<T> {
    const statement = this.prepared(sql);
    const explained = this.explained.bind(this);
    return this.track(
      (function* () {
        const rows = explained(() => statement.iterate(params) as IterableIterator<Row>);
        try {
          for (;;) {
            const next = explained(() => rows.next());
            if (next.done) return;
            yield map(next.value);
          }
        } finally {
          // Stopped early: release the statement so the connection can close.
          rows.return?.();
        }
      })(),
    );
  }

  /** Registers a read as open until it finishes, is stopped, or close() stops it. */
  private track<T>(source: Iterable<T>): IterableIterator<T> {
    const reading = this.reading;
    function* read(): Generator<T> {
      try {
        yield* source;
      } finally {
        reading.delete(tracked);
      }
    }
    const tracked = read();
    reading.add(tracked);
    return tracked;
  }
}
