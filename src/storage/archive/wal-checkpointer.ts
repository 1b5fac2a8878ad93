import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database as Db } from 'better-sqlite3';

/**
 * WAL pages at which the writer checkpoints by itself, on its own thread: a
 * safety net far above what the checkpointer lets the WAL reach, so the file
 * stays bounded even if the checkpointer stops.
 */
export const WRITER_AUTOCHECKPOINT_PAGES = 16_000;
const CHECKPOINT_EVERY_MS = 500;
/** How long closing waits for the checkpointer's connection to close; after it the archive simply stays in WAL mode. */
const STOP_WAIT_MS = 10_000;

// Flags shared with the thread: [0] stop asked, [1] its connection is closed.
const STOP = 0;
const CLOSED = 1;

const THREAD = `
const { workerData } = require('node:worker_threads');
const flags = new Int32Array(workerData.flags);
let db;
try {
  const Database = require(workerData.sqlite);
  db = new Database(workerData.path, { fileMustExist: true });
  while (Atomics.load(flags, 0) === 0) {
    try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
    Atomics.wait(flags, 0, 0, workerData.everyMs);
  }
} catch {
  // The writer's own checkpoints take over.
} finally {
  try { db?.close(); } catch {}
  Atomics.store(flags, 1, 1);
  Atomics.notify(flags, 1);
}
`;

/**
 * Copies the WAL back into the archive from a thread of its own. SQLite's
 * automatic checkpoint runs inside the commit that crosses its threshold:
 * on the crawl's only thread, a stall of tens of milliseconds (and an fsync)
 * every few hundred pages, with every request slot waiting. A passive
 * checkpoint on a second connection never blocks the writer.
 */
export class WalCheckpointer {
  private constructor(
    private readonly worker: Worker,
    private readonly flags: Int32Array,
  ) {}

  static start(db: Db, path: string): WalCheckpointer {
    db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
    const flags = new Int32Array(new SharedArrayBuffer(8));
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(THREAD, { eval: true, workerData: { path, sqlite, flags: flags.buffer, everyMs: CHECKPOINT_EVERY_MS } });
    worker.unref();
    // A thread that fails to start leaves the writer's own checkpoints in charge.
    worker.on('error', () => Atomics.store(flags, CLOSED, 1));
    return new WalCheckpointer(worker, flags);
  }

  /** Closes the thread's connection before the archive leaves WAL mode, which needs the file to itself. */
  stop(): void {
    Atomics.store(this.flags, STOP, 1);
    Atomics.notify(this.flags, STOP);
    Atomics.wait(this.flags, CLOSED, 0, STOP_WAIT_MS);
    void this.worker.terminate();
  }
}
