import type { RunningQuery } from '../storage/query/index.js';
import type { SearchHit, SearchOptions } from '../storage/query/index.js';
import { startSearch } from '../storage/query/index.js';
import { checkSearchSize } from '../storage/query/index.js';
import { SearchSlots } from './search-slots.js';

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
  const slots = new SearchSlots(SEARCHES_RUNNING, SEARCHES_WAITING);
  const running = new Set<RunningQuery>();
  let closed = false;
  return {
    async search(query, options) {
      // Too large is refused before it queues: it would only be refused once its turn came.
      checkSearchSize(query);
      const free = await slots.take();
      if (closed) {
        free();
        return [];
      }
      const hits: SearchHit[] = [];
      let search: RunningQuery;
      try {
        search = startSearch(path, query, options, (batch) => void hits.push(...batch), { timeoutMs, raiseWith: 'serve --search-timeout' });
      } catch (error) {
        free();
        throw error;
      }
      // The slot is free once the process is gone, not when its answer is: a killed one may take a moment to end.
      void search.exited.then(free);
      running.add(search);
      try {
        await search.finished;
      } finally {
        running.delete(search);
      }
      return hits;
    },
    close() {
      closed = true;
      for (const search of running) search.stop();
    },
  };
}
