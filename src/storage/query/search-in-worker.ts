import { CrawliteError } from '../../crawlite-error.js';
import { startWorker, type RunningQuery } from './query-worker-client.js';
import type { SearchHit, SearchOptions } from './search-archive.js';
import { checkSearchSize } from './search-limits.js';

/** The search ran past its time limit and was killed. */
export class SearchTimeoutError extends CrawliteError {
  constructor(
    readonly timeoutMs: number,
    raiseWith?: string,
  ) {
    const after = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
    super('SEARCH_TIMEOUT', `search stopped after ${after}: narrow the query${raiseWith ? ` (or raise ${raiseWith})` : ''}`);
  }
}

/** What the search process refused or failed at, with the code and words it gave (BAD_SEARCH_QUERY, SEARCH_NOT_INDEXED, NOT_AN_ARCHIVE, ...). */
export class SearchFailedError extends CrawliteError {
  constructor(code: string | undefined, message: string) {
    super(code ?? 'SEARCH_FAILED', message);
  }
}

export interface SearchLimits {
  /** The whole search, from the start of its process; none by default. */
  timeoutMs?: number;
  /** The setting that raises the limit, named in the timeout's message (`--timeout`). */
  raiseWith?: string;
}

const toHit = ([url, title, snippet, rank, fetchedAt, status, section]: unknown[]): SearchHit =>
  ({ url, title, snippet, rank, fetchedAt, status, section }) as SearchHit;

/**
 * Runs searchArchive in a child process, which stop() and the time limit kill
 * wherever it is (a search for many prefixes is one long SQLite step that
 * nothing in this process could interrupt). Hits go to `onHits` in batches.
 * A query over the size limits is refused here, before a process starts.
 */
export function startSearch(
  path: string,
  query: string,
  options: SearchOptions,
  onHits: (hits: SearchHit[]) => Promise<void> | void,
  limits: SearchLimits = {},
): RunningQuery {
  checkSearchSize(query);
  const { timeoutMs, raiseWith } = limits;
  return startWorker(
    { type: 'search', path, query, options },
    { columns: () => {}, rows: (rows) => onHits(rows.map(toHit)) },
    {
      ...(timeoutMs !== undefined ? { timeout: { ms: timeoutMs, error: () => new SearchTimeoutError(timeoutMs, raiseWith) } } : {}),
      failed: (message, code) => new SearchFailedError(code, message),
    },
  );
}
