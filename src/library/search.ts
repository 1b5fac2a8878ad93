import type { SearchHit, SearchOptions } from '../storage/public.js';
import { untilDone, type QueryEnd } from './query.js';

const DEFAULT_LIMIT = 20;

/** A full-text search of an archive's pages, best matches first, as `crawlite search`. */
export interface SearchInput extends Omit<SearchOptions, 'limit'> {
  db: string;
  /** Hits at most: 20 unless said, as `crawlite search`. */
  limit?: number;
  /** Words as typed (`mode: 'typed'`, the default), or FTS5 syntax (`mode: 'fts'`). */
  query: string;
  /** A time limit for the whole search; past it the promise rejects with SearchTimeoutError. */
  timeoutMs?: number;
  /** The setting that raises the time limit, named in the timeout's message (`--timeout`). */
  timeoutSetting?: string;
  /** Hits in batches; the next batch waits for the promise returned. */
  onHits: (hits: SearchHit[]) => Promise<void> | void;
  /** Aborting it kills the search wherever it is, even inside one long SQLite step. */
  signal?: AbortSignal;
}

export interface SearchReport {
  /** `done` once every hit was told, `stopped` after an abort. */
  end: QueryEnd;
  /** Hits told. */
  found: number;
  /** With no hit found: HTML pages that have no text in the index (reindex() gives them theirs). */
  unindexed: number;
}

/** Runs the search in a process of its own, so an abort or the time limit can stop it inside SQLite. */
export async function searchArchive(input: SearchInput): Promise<SearchReport> {
  const { pagesWithoutTextIn, startSearch } = await import('../storage/query/index.js');
  let found = 0;
  const options: SearchOptions = {
    limit: input.limit ?? DEFAULT_LIMIT,
    ...(input.mode !== undefined ? { mode: input.mode } : {}),
    ...(input.offset !== undefined ? { offset: input.offset } : {}),
    ...(input.markStart !== undefined ? { markStart: input.markStart } : {}),
    ...(input.markEnd !== undefined ? { markEnd: input.markEnd } : {}),
  };
  const running = startSearch(
    input.db,
    input.query,
    options,
    (hits) => {
      found += hits.length;
      return input.onHits(hits);
    },
    {
      ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
      ...(input.timeoutSetting !== undefined ? { raiseWith: input.timeoutSetting } : {}),
    },
  );
  const end = await untilDone(running, input.signal);
  if (end !== 'done' || found > 0) return { end, found, unindexed: 0 };
  return { end, found, unindexed: pagesWithoutTextIn(input.db) };
}
