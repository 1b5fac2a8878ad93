import { Worker } from 'node:worker_threads';
import { CrawliteError } from '../../crawlite-error.js';
import { openArchive, type ArchiveReader, type ReadOnlyQuery } from '../reader/archive-reader.js';
import { BATCH_MAX_BYTES, BATCH_MAX_ROWS, BATCHES_IN_FLIGHT, SEARCH_COLUMNS, type FromWorker, type ToWorker, type WorkerTask } from './query-worker-protocol.js';

// The process `query` runs one statement in, and `search` (the command, and each
// search of serve's UI) one search. A step of SQLite (an endless recursive CTE
// counted in one row, a search for hundreds of prefixes) never returns to
// JavaScript, so neither a signal handler nor Worker.terminate() can stop it
// (terminate() waits for the step to end); a process can be killed.

/**
 * Stops this process if its parent dies without killing it (kill -9): a thread
 * of its own, because the main one may be inside SQLite for ever.
 */
const WATCH_PARENT = `
const { workerData } = require('node:worker_threads');
setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL'); }, 250);
`;

const send = (message: FromWorker) => process.send!(message);

let sent = 0;
let acked = 0;
let wake: (() => void) | undefined;

/** Sends one batch, then waits while BATCHES_IN_FLIGHT are unacknowledged: the reader sets the pace. */
async function sendRows(rows: unknown[][]): Promise<void> {
  send({ type: 'rows', rows });
  sent += 1;
  while (sent - acked >= BATCHES_IN_FLIGHT) await new Promise<void>((resolve) => (wake = resolve));
}

function cellBytes(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

/** The task's rows: a search's hits are all read at once (they are few: one page of results, or --limit). */
function read(archive: ArchiveReader, task: WorkerTask): ReadOnlyQuery {
  if (task.type === 'run') return archive.query(task.sql, task.params);
  const hits = archive.search(task.query, task.options);
  return { columns: [...SEARCH_COLUMNS], rows: hits.map((hit) => SEARCH_COLUMNS.map((column) => hit[column])) };
}

async function run(task: WorkerTask): Promise<void> {
  const archive = openArchive(task.path);
  try {
    const query = read(archive, task);
    send({ type: 'columns', columns: query.columns });
    let batch: unknown[][] = [];
    let bytes = 0;
    for (const row of query.rows) {
      batch.push(row);
      for (const cell of row) bytes += cellBytes(cell);
      if (batch.length >= BATCH_MAX_ROWS || bytes >= BATCH_MAX_BYTES) {
        await sendRows(batch);
        batch = [];
        bytes = 0;
      }
    }
    if (batch.length) await sendRows(batch);
  } finally {
    archive.close();
  }
  send({ type: 'done' });
}

process.on('message', (message: ToWorker) => {
  if (message.type === 'ack') {
    acked += 1;
    wake?.();
    return;
  }
  run(message).catch((error: unknown) => {
    const text = error instanceof Error ? error.message : String(error);
    if (error instanceof CrawliteError) send({ type: 'error', message: text, code: error.code });
    else send({ type: 'error', message: `${message.type === 'run' ? 'query' : 'search'} failed: ${text}` });
  });
});
// Ctrl-C reaches the whole process group: its parent decides what stops, and kills this process.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
// The parent went away, or took `done` or `error` and let go: nothing is left to read for.
process.on('disconnect', () => process.exit(0));
// The pid the parent passed, not process.ppid read now: the parent may already be gone when this line runs.
new Worker(WATCH_PARENT, { eval: true, workerData: Number(process.argv[2]) || process.ppid }).unref();
