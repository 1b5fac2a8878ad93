/** One read-only SQL statement against an archive, its rows streamed, as `crawlite query`. */
export interface QueryInput {
  db: string;
  /** One statement that only reads; a write, ATTACH or bad SQL is refused before it runs (QueryRefusedError). */
  sql: string;
  /** A time limit for the whole statement; past it the promise rejects with QueryTimeoutError. */
  timeoutMs?: number;
  /** Told the result's column names once, before any row. */
  onColumns: (columns: string[]) => void;
  /** Rows in batches; the next batch waits for the promise returned, so a slow reader holds the query back. */
  onRows: (rows: unknown[][]) => Promise<void> | void;
  /** Aborting it kills the statement wherever it is, even inside one endless SQLite step. */
  signal?: AbortSignal;
}

/** `done` once every row was told, `stopped` after an abort. */
export type QueryEnd = 'done' | 'stopped';

/** Runs the statement in a process of its own, so an abort or the time limit can stop it inside SQLite. */
export async function queryArchive(input: QueryInput): Promise<QueryEnd> {
  const { startQuery } = await import('../storage/query/index.js');
  const running = startQuery(input.db, input.sql, { columns: input.onColumns, rows: input.onRows }, { timeoutMs: input.timeoutMs });
  return untilDone(running, input.signal);
}

/** Waits for a query or search process, stopping it when the signal aborts. */
export async function untilDone(
  running: { finished: Promise<QueryEnd>; stop(): void },
  signal: AbortSignal | undefined,
): Promise<QueryEnd> {
  const stop = () => running.stop();
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop);
  try {
    return await running.finished;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}
