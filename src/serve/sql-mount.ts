import type { QueryParams } from '../storage/reader/index.js';
import { isCutCell, startRowsQuery, type RowSink, type RowsFormat, type RunningQuery } from '../storage/query/index.js';
import { SearchSlots } from './search-slots.js';

// Where the UI's SQL page gets its rows: each statement in a process of its own
// (src/storage/query), killed at its time limit, a few at a time, so a slow or
// endless query never holds up the server and a page sending many starts few.

/** A statement's time limit on the SQL page (serve --search-timeout sets it, as for a search). */
export const SQL_TIMEOUT_MS = 5000;
/** A download (`/sql.csv`, `/sql.json`) reads every row: it may run this long. */
export const DOWNLOAD_TIMEOUT_MS = 60_000;
/** Rows the page shows of a query, at most, and the bytes they may take: the rest is for the downloads. */
export const SHOWN_ROWS = 200;
export const SHOWN_BYTES = 8 * 1024 * 1024;
/**
 * Characters of one cell the page shows; a longer one is cut in the query's process and comes with
 * its size (a CutCell), and a BLOB comes as its size alone, so a cell of any size costs serve this much.
 */
export const SHOWN_CELL_CHARS = 1000;

export interface FirstRows {
  columns: string[];
  rows: unknown[][];
  /** More rows were left: the query was stopped after the ones shown. */
  cut: boolean;
}

export interface UiSql {
  /** The time limit of one page's statement, in ms. */
  readonly timeoutMs: number;
  /** The time limit of one download, in ms. */
  readonly downloadTimeoutMs: number;
  /** The first rows of a statement, at most `maxRows` and about SHOWN_BYTES, each cell cut past `cellChars` (SHOWN_CELL_CHARS; a CutCell). */
  firstRows(sql: string, options?: { params?: QueryParams; maxRows?: number; cellChars?: number }): Promise<FirstRows>;
  /**
   * Every row of a statement as a CSV or JSON document, to `write` in pieces of about 256 K characters (made in the query's
   * process, so a cell of any size crosses in pieces), within DOWNLOAD_TIMEOUT_MS; `started` gets the query to stop it (a client gone).
   */
  allRows(
    sql: string,
    format: RowsFormat,
    write: (text: string) => Promise<void>,
    started: (query: RunningQuery) => void,
  ): Promise<'done' | 'stopped'>;
  /** Kills the queries running; none starts after. */
  close(): void;
}

const cellBytes = (value: unknown) => (typeof value === 'string' ? value.length : isCutCell(value) ? value.head.length : 8);

export function uiSql(path: string, timeoutMs: number = SQL_TIMEOUT_MS, downloadTimeoutMs: number = DOWNLOAD_TIMEOUT_MS): UiSql {
  const pageSlots = new SearchSlots(2, 8);
  const downloadSlots = new SearchSlots(2, 2);
  const running = new Set<RunningQuery>();
  let closed = false;

  /** Runs one statement in a slot; the slot is free once its process has ended. */
  async function run(slots: SearchSlots, start: () => RunningQuery, onStart?: (query: RunningQuery) => void): Promise<'done' | 'stopped'> {
    const free = await slots.take();
    if (closed) {
      free();
      return 'stopped';
    }
    let query: RunningQuery;
    try {
      query = start();
    } catch (error) {
      free();
      throw error;
    }
    void query.exited.then(free);
    running.add(query);
    onStart?.(query);
    try {
      return await query.finished;
    } finally {
      running.delete(query);
    }
  }

  return {
    timeoutMs,
    downloadTimeoutMs,
    async firstRows(sql, { params, maxRows = SHOWN_ROWS, cellChars = SHOWN_CELL_CHARS } = {}) {
      const shown: FirstRows = { columns: [], rows: [], cut: false };
      let bytes = 0;
      let query: RunningQuery | undefined;
      const sink: RowSink = {
        columns: (columns) => {
          shown.columns = columns;
        },
        rows: (rows) => {
          for (const row of rows) {
            if (shown.rows.length >= maxRows || bytes >= SHOWN_BYTES) {
              shown.cut = true;
              query?.stop();
              return;
            }
            shown.rows.push(row);
            for (const cell of row) bytes += cellBytes(cell);
          }
        },
      };
      await run(
        pageSlots,
        () => (query = startRowsQuery(path, sql, sink, { timeoutMs, cellChars, ...(params !== undefined ? { params } : {}) })),
      );
      return shown;
    },
    allRows(sql, format, write, started) {
      const sink: RowSink = { columns: () => {}, rows: () => {}, text: write };
      return run(downloadSlots, () => startRowsQuery(path, sql, sink, { timeoutMs: downloadTimeoutMs, encode: format }), started);
    },
    close() {
      closed = true;
      for (const query of running) query.stop();
    },
  };
}
