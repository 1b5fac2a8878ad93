import type { Database } from 'better-sqlite3';
import { archiveReport, type ArchiveReport } from './archive-report.js';
import {
  LINKS_FROM_SQL,
  LINKS_SQL,
  PAGE_SQL,
  pagesQuery,
  toLink,
  toPage,
  URLS_IN_STATE_SQL,
  URLS_SQL,
  type ArchivedLink,
  type ArchivedPage,
  type ArchivedUrl,
  type PageFilter,
  type PageRow,
  type UrlState,
} from './archive-views.js';
import { explainOpenError, openArchive as openArchiveFile } from './open-archive.js';
import { prepareReadOnlyQuery, type QueryParams, type ReadOnlyQuery } from './read-only-query.js';

export type { ArchiveReport, QueryParams, ReadOnlyQuery };
export type { ArchivedLink, ArchivedPage, ArchivedUrl, LinkKind, PageFilter, UrlKind, UrlState } from './archive-views.js';

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
  /** The stored responses with their bodies, in URL order, narrowed by `filter`. */
  pages(filter?: PageFilter): IterableIterator<ArchivedPage>;
  /** The stored response of one URL (its archive key, as in `pages.url`), if it has one. */
  page(url: string): ArchivedPage | undefined;
  /** Every link found, or those found on one URL, in order of source then target. */
  links(fromUrl?: string): IterableIterator<ArchivedLink>;
  /** Every URL seen, or those in one state, in URL order. */
  urls(state?: UrlState): IterableIterator<ArchivedUrl>;
  /** What a crawl reports at its end, over all its runs: what `crawlite stats` prints. */
  report(): ArchiveReport;
  /**
   * Prepares one SQL statement that only reads; writes, ATTACH, DETACH,
   * VACUUM and several statements are refused with a QueryRefusedError.
   * It runs when `rows` is iterated, in this process, without a time limit.
   */
  query(sql: string, params?: QueryParams): ReadOnlyQuery;
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

  constructor(
    readonly path: string,
    private readonly db: Database,
  ) {}

  pages(filter?: PageFilter): IterableIterator<ArchivedPage> {
    const { sql, params } = pagesQuery(filter);
    return this.rows(sql, params, toPage);
  }

  page(url: string): ArchivedPage | undefined {
    const row = this.explained(() => this.db.prepare<[string], PageRow>(PAGE_SQL).get(url));
    return row && toPage(row);
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

  close(): void {
    if (!this.db.open) return;
    for (const read of [...this.reading]) read.return?.();
    this.reading.clear();
    this.db.close();
  }

  /** Runs a read, turning SQLite's complaints about the file (corruption) into errors that say so. */
  private explained<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      return explainOpenError(this.path, error);
    }
  }

  /** Streams a statement's rows through `map`; the statement is prepared now, so bad SQL fails here. */
  private rows<Row, T>(sql: string, params: QueryParams, map: (row: Row) => T): IterableIterator<T> {
    const statement = this.db.prepare(sql);
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
