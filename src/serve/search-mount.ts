import type { SearchHit, SearchOptions } from '../storage/query/index.js';
import { startSearch } from '../storage/query/index.js';
import { checkSearchSize } from '../storage/query/index.js';
import { QueryProcesses } from './query-processes.js';

// Where the UI's search comes from: full-text search over the archive (src/storage/search-archive.ts),
// each in a process of its own with a time limit, so a slow one never holds up the server.
// Kept behind this one import so the UI's pages depend on the search contract only.

export type { SearchHit };
/** One page of hits, or a rejection with a CrawliteError whose code says why not (BAD_SEARCH_QUERY, SEARCH_TIMEOUT, ...). */
export type SearchArchive = (query: string, options: SearchOptions) => Promise<SearchHit[]>;

/** serve's default time limit for one search (--search-timeout). */
export const SEARCH_TIMEOUT_MS = 5000;
/** Searches running at once, and queued behind them; more are refused with 503. */
export const SEARCHES_RUNNING = 2;
export const SEARCHES_WAITING = 8;

export interface UiSearch {
  search: SearchArchive;
  /** Kills the searches running; none starts after. */
  close(): void;
}

export function uiSearch(path: string, timeoutMs: number = SEARCH_TIMEOUT_MS): UiSearch {
  const processes = new QueryProcesses(SEARCHES_RUNNING, SEARCHES_WAITING);
  return {
    async search(query, options) {
      // Too large is refused before it queues: it would only be refused once its turn came.
      checkSearchSize(query);
      const hits: SearchHit[] = [];
      return processes.run(
        () => startSearch(path, query, options, (batch) => void hits.push(...batch), { timeoutMs, raiseWith: 'serve --search-timeout' }),
        () => hits,
        [],
      );
    },
    close: () => processes.close(),
  };
}
