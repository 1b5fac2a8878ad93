import { Worker } from 'node:worker_threads';
import { CrawliteError } from '../../crawlite-error.js';
import { openArchive, type ArchiveReader, type ReadOnlyQuery } from '../reader/archive-reader.js';
import { PREVIEW_SCAN_ROWS, previewExclusion, QUEUED_URLS_SQL } from '../control/exclusion-preview.js';
import { LiveView } from '../control/live-view.js';
import { cutCell, isCutCell } from './cut-cell.js';
import { diffCaptures } from './diff-captures.js';
import { encodeRows } from './encode-rows.js';
import {
  BATCH_MAX_BYTES,
  BATCH_MAX_ROWS,
  BATCHES_IN_FLIGHT,
  SEARCH_COLUMNS,
  TEXT_MAX_CHARS,
  type FromWorker,
  type ToWorker,
  type WorkerTask,
} from './query-worker-protocol.js';

// The process `query` runs one statement in, `search` (the command, and each
// search of serve's UI) one search, and serve's changes page one text diff. A step of SQLite (an endless recursive CTE
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

/** Sends one batch (of rows, or a piece of text), then waits while BATCHES_IN_FLIGHT are unacknowledged: the reader sets the pace. */
async function sendBatch(message: FromWorker & { type: 'rows' | 'text' }): Promise<void> {
  send(message);
  sent += 1;
  while (sent - acked >= BATCHES_IN_FLIGHT) await new Promise<void>((resolve) => (wake = resolve));
}

function cellBytes(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value instanceof Uint8Array) return value.byteLength;
  if (isCutCell(value)) return value.head.length;
  return 8;
}

function* cutRows(rows: Iterable<unknown[]>, chars: number): Generator<unknown[]> {
  for (const row of rows) yield row.map((cell) => cutCell(cell, chars));
}

async function sendRows(rows: Iterable<unknown[]>): Promise<void> {
  let batch: unknown[][] = [];
  let bytes = 0;
  for (const row of rows) {
    batch.push(row);
    for (const cell of row) bytes += cellBytes(cell);
    if (batch.length >= BATCH_MAX_ROWS || bytes >= BATCH_MAX_BYTES) {
      await sendBatch({ type: 'rows', rows: batch });
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length) await sendBatch({ type: 'rows', rows: batch });
}

/** A document's pieces joined into messages of about TEXT_MAX_CHARS: a large cell's pieces are sent as they are made. */
async function sendText(pieces: Iterable<string>): Promise<void> {
  let parts: string[] = [];
  let chars = 0;
  for (const piece of pieces) {
    parts.push(piece);
    chars += piece.length;
    if (chars >= TEXT_MAX_CHARS) {
      await sendBatch({ type: 'text', text: parts.join('') });
      parts = [];
      chars = 0;
    }
  }
  if (parts.length) await sendBatch({ type: 'text', text: parts.join('') });
}

/** The task's rows: a search's hits are all read at once (they are few: one page of results, or --limit); a diff is one row. */
function read(archive: ArchiveReader, task: WorkerTask): ReadOnlyQuery {
  if (task.type === 'run') return archive.query(task.sql, task.params);
  if (task.type === 'diff') return { columns: ['diff'], rows: [[diffCaptures(archive, task.asked, task.limits)]] };
  if (task.type === 'live') throw new TypeError('a live feed is no one-off read');
  if (task.type === 'preview')
    return {
      columns: ['preview'],
      rows: [[previewExclusion(archive.query(QUEUED_URLS_SQL, [PREVIEW_SCAN_ROWS]).rows, new RegExp(task.pattern))]],
    };
  const hits = archive.search(task.query, task.options);
  return { columns: [...SEARCH_COLUMNS], rows: hits.map((hit) => SEARCH_COLUMNS.map((column) => hit[column])) };
}

/**
 * Snapshots of a running crawl, one per acknowledgement of the last, until the parent lets go: the reader
 * asks for each (serve, when a page polls), so none is read ahead and none goes stale waiting.
 */
async function runLive(task: WorkerTask & { type: 'live' }): Promise<never> {
  const view = LiveView.open(task.path);
  send({ type: 'columns', columns: ['snapshot'] });
  for (;;) {
    send({ type: 'rows', rows: [[view.snapshot()]] });
    sent += 1;
    while (sent > acked) await new Promise<void>((resolve) => (wake = resolve));
  }
}

async function run(task: WorkerTask): Promise<void> {
  if (task.type === 'live') return runLive(task);
  const archive = openArchive(task.path);
  try {
    const query = read(archive, task);
    send({ type: 'columns', columns: query.columns });
    if (task.type === 'run' && task.encode) await sendText(encodeRows(task.encode, query.columns, query.rows));
    else if (task.type === 'run' && task.cellChars !== undefined) await sendRows(cutRows(query.rows, task.cellChars));
    else await sendRows(query.rows);
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
    else send({ type: 'error', message: `${message.type === 'run' ? 'query' : message.type} failed: ${text}` });
  });
});
// Ctrl-C reaches the whole process group: its parent decides what stops, and kills this process.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
// The parent went away, or took `done` or `error` and let go: nothing is left to read for.
process.on('disconnect', () => process.exit(0));
// The pid the parent passed, not process.ppid read now: the parent may already be gone when this line runs.
new Worker(WATCH_PARENT, { eval: true, workerData: Number(process.argv[2]) || process.ppid }).unref();
