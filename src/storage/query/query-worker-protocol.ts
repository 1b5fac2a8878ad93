/** Messages between `query` or `search` and the process that runs its statement (child_process IPC, advanced serialization). */
import type { QueryParams } from '../reader/reader-types.js';
import type { DiffAsked, DiffLimits } from './diff-captures.js';
import type { RowsFormat } from './encode-rows.js';
import type { SearchOptions } from './search-archive.js';

/** How a statement's rows come back: as rows (each cell whole, or cut for display past `cellChars`), or as a CSV or JSON document. */
export interface RunShape {
  /** Cells cut in the worker (cut-cell.ts): text past this many characters, and every BLOB, cross as a CutCell. */
  cellChars?: number;
  /** The rows as a document of this format, sent in `text` pieces instead of rows. */
  encode?: RowsFormat;
}

/**
 * What the worker runs: one read-only SQL statement, one full-text search, one text diff of two captures (one row: its
 * CapturesDiff), one count of the queued URLs a live exclusion would skip (one row: its ExclusionPreview), or
 * snapshots of a running crawl for serve's live page, one row (its LiveSnapshot) each time the last is acknowledged.
 */
export type WorkerTask =
  | ({ type: 'run'; path: string; sql: string; params?: QueryParams } & RunShape)
  | { type: 'search'; path: string; query: string; options: SearchOptions }
  | { type: 'diff'; path: string; asked: DiffAsked; limits: DiffLimits }
  | { type: 'preview'; path: string; pattern: string }
  | { type: 'live'; path: string };

/** To the worker: its task, then one `ack` per batch of rows (or piece of text) taken. */
export type ToWorker = WorkerTask | { type: 'ack' };

/** From the worker: the column names, batches of rows (or pieces of a document), then `done` or `error` (with the CrawliteError's code, when it was one). */
export type FromWorker =
  | { type: 'columns'; columns: string[] }
  | { type: 'rows'; rows: unknown[][] }
  | { type: 'text'; text: string }
  | { type: 'done' }
  | { type: 'error'; message: string; code?: string };

/** The columns of a search's rows, in order: a SearchHit's fields. */
export const SEARCH_COLUMNS = ['url', 'title', 'snippet', 'rank', 'fetchedAt', 'status', 'section'] as const;

/** A batch ends at this many rows or bytes, whichever comes first, so page bodies do not pile up. */
export const BATCH_MAX_ROWS = 1000;
export const BATCH_MAX_BYTES = 1024 * 1024;
/** A `text` message ends once it holds this many characters: an encoded document crosses in pieces of about this size. */
export const TEXT_MAX_CHARS = 256 * 1024;
/** Batches sent and not yet acknowledged, at most: the worker reads ahead by one while the output drains. */
export const BATCHES_IN_FLIGHT = 2;
