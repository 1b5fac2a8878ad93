/** Messages between `query` and the process that runs its statement (child_process IPC, advanced serialization). */

/** To the worker: the statement to run, then one `ack` per batch of rows taken. */
export type ToWorker = { type: 'run'; path: string; sql: string } | { type: 'ack' };

/** From the worker: the column names, batches of rows, then `done` or `error`. */
export type FromWorker =
  | { type: 'columns'; columns: string[] }
  | { type: 'rows'; rows: unknown[][] }
  | { type: 'done' }
  | { type: 'error'; message: string };

/** A batch ends at this many rows or bytes, whichever comes first, so page bodies do not pile up. */
export const BATCH_MAX_ROWS = 1000;
export const BATCH_MAX_BYTES = 1024 * 1024;
/** Batches sent and not yet acknowledged, at most: the worker reads ahead by one while the output drains. */
export const BATCHES_IN_FLIGHT = 2;
