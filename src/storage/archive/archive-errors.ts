import { CrawliteError } from '../../crawlite-error.js';

/** The file is missing, unreadable, or cannot be created where asked. */
export class ArchivePathError extends CrawliteError {
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super('ARCHIVE_PATH', `${path}: ${reason}`, options);
  }
}

/** A file that SQLite cannot read, or a SQLite file made by something else. */
export class NotAnArchiveError extends CrawliteError {
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super('NOT_AN_ARCHIVE', `${path} is not a crawlite archive: ${reason}`, options);
  }
}

export class NewerSchemaError extends CrawliteError {
  constructor(path: string, found: number, known: number) {
    super(
      'NEWER_SCHEMA',
      `${path} was written by a newer crawlite (schema ${found}, this version knows up to ${known}); upgrade crawlite to open it`,
    );
  }
}

export class CorruptArchiveError extends CrawliteError {
  constructor(path: string, options?: { cause?: unknown }) {
    super('CORRUPT_ARCHIVE', `${path} is corrupt (SQLite reports a malformed database); nothing was written to it`, options);
  }
}

export class ArchiveBusyError extends CrawliteError {
  constructor(path: string, reason: string) {
    super('ARCHIVE_BUSY', `${path} is busy: ${reason}`);
  }

  /** Another crawl holds the archive's lock; `holder` names it when its row can be read. */
  static crawl(path: string, holder?: string): ArchiveBusyError {
    return new ArchiveBusyError(
      path,
      `another crawl${holder ? ` (${holder})` : ''} is writing to it; wait for it to finish or stop it first`,
    );
  }
}

export class NothingToResumeError extends CrawliteError {
  constructor(path: string) {
    super('NOTHING_TO_RESUME', `${path} holds no crawl to resume (no roots stored); start one with crawlite crawl <url> --db ${path}`);
  }
}

/** crawl, resume, retry or recrawl of a worker's shard: its crawl lives in the shared frontier, not in the file. */
export class ShardArchiveError extends CrawliteError {
  constructor(path: string) {
    super(
      'ARCHIVE_IS_SHARD',
      `${path} is a worker's shard of a crawl on a shared PostgreSQL frontier: go on with crawlite worker <conn> --db ${path}, or crawlite merge the shards and crawl the merged archive`,
    );
  }
}

/** `worker --db` given an archive that is no shard: a worker would replace its roots and options and mix another crawl's pages in. */
export class NotAShardError extends CrawliteError {
  constructor(path: string, holds: 'a crawl of its own' | 'pages of its own') {
    super(
      'ARCHIVE_NOT_A_SHARD',
      `${path} holds ${holds}, not a worker's shard: a worker would replace its roots and options and add another crawl's pages; give the worker a new file (--db shard-1.sqlite)`,
    );
  }
}

/** `worker --db` given a shard of another shared crawl: its pages would be merged with this crawl's. */
export class ShardOfOtherCrawlError extends CrawliteError {
  constructor(path: string, theirs: string, ours: string) {
    super(
      'SHARD_OF_OTHER_CRAWL',
      `${path} is a shard of another shared crawl (${theirs}), not of ${ours}: give the worker a new file (--db shard-1.sqlite)`,
    );
  }
}

/** `recrawl` of an archive that holds no crawl (nothing, or only imported WARCs). */
export class NothingToRecrawlError extends CrawliteError {
  constructor(path: string) {
    super('NOTHING_TO_RECRAWL', `${path} holds no crawl to repeat (no roots stored); start one with crawlite crawl <url> --db ${path}`);
  }
}

/** `recrawl` while the last crawl still has URLs to fetch: it must be finished first. */
export class UnfinishedCrawlError extends CrawliteError {
  constructor(path: string, left: number) {
    super(
      'CRAWL_UNFINISHED',
      `${path}: the last crawl is not finished (${left} URL${left === 1 ? '' : 's'} left to fetch); run crawlite resume ${path} first`,
    );
  }
}

/** A SQL string that `query` will not run: invalid, more than one statement, or one that writes. */
export class QueryRefusedError extends CrawliteError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('QUERY_REFUSED', reason, options);
  }
}

/** A query FTS5 cannot parse (`"unclosed`, `a AND`, `col:word` for a column that does not exist). */
export class SearchQueryError extends CrawliteError {
  constructor(query: string, reason: string, options?: { cause?: unknown }) {
    super(
      'BAD_SEARCH_QUERY',
      `bad search query ${JSON.stringify(query)}: ${reason} (FTS5 syntax: words, "a phrase", OR, NOT, prefix*)`,
      options,
    );
  }
}

/** A query with no word in it (empty, or only punctuation such as `(` or `@`): nothing for the index to look up. */
export class NothingToSearchError extends CrawliteError {
  constructor(query: string) {
    super('NOTHING_TO_SEARCH', `nothing to search for in ${JSON.stringify(query)}: a query needs a word (a letter or a digit)`);
  }
}

/** The archive has no search tables: it was written by a crawlite older than search and opened without migrating. */
export class SearchNotIndexedError extends CrawliteError {
  constructor() {
    super('SEARCH_NOT_INDEXED', 'this archive has no search index (made by an older crawlite); run crawlite reindex <db> to build it');
  }
}

/** Writing failed (disk full, I/O error): the crawl must stop; what is committed stays consistent. */
export class ArchiveWriteError extends CrawliteError {
  constructor(path: string, options: { cause: unknown }) {
    const detail = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super('ARCHIVE_WRITE', `cannot write to ${path}: ${detail}; the archive is consistent, run resume once the problem is fixed`, options);
  }
}

/** SQLite's codes for a file that cannot take writes (any extended code of these, e.g. SQLITE_IOERR_WRITE). */
const FATAL_WRITE_CODES = ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_READONLY', 'SQLITE_CORRUPT', 'SQLITE_CANTOPEN'];

/**
 * The error to report for a failure while writing `path`: a disk that is full
 * or failing becomes an ArchiveWriteError, whichever statement met it first
 * (a claim, a page, the run's end); any other error is returned as it is.
 */
export function asWriteError(path: string, error: unknown): unknown {
  if (error instanceof CrawliteError) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return FATAL_WRITE_CODES.some((fatal) => code.startsWith(fatal)) ? new ArchiveWriteError(path, { cause: error }) : error;
}
