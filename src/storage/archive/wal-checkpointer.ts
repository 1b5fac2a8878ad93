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
 *
 * The thread starts when its first checkpoint is due, not with the archive:
 * a thread's start costs a core about 250 ms of Node's own start-up, which at
 * the crawl's start competes with everything the first request waits for,
 * and a crawl that ends sooner never needs it.
 */
export class WalCheckpointer {
  private worker: Worker | undefined;
  private readonly flags = new Int32Array(new SharedArrayBuffer(8));
  private readonly timer: NodeJS.Timeout;

  private constructor(path: string) {
    this.timer = setTimeout(() => this.startThread(path), CHECKPOINT_EVERY_MS);
    this.timer.unref();
  }

  static start(db: Db, path: string): WalCheckpointer {
    db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
    return new WalCheckpointer(path);
  }

  /** Whether the thread has been started (and not stopped). */
  get running(): boolean {
    return this.worker !== undefined && Atomics.load(this.flags, CLOSED) === 0;
  }

  private startThread(path: string): void {
    if (Atomics.load(this.flags, STOP) === 1) return;
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    const flags = this.flags;
    const worker = new Worker(THREAD, { eval: true, workerData: { path, sqlite, flags: flags.buffer, everyMs: CHECKPOINT_EVERY_MS } });
    worker.unref();
    // A thread that fails to start leaves the writer's own checkpoints in charge.
    worker.on('error', () => Atomics.store(flags, CLOSED, 1));
    this.worker = worker;
  }

  /** Closes the thread's connection before the archive leaves WAL mode, which needs the file to itself. */
  stop(): void {
    clearTimeout(this.timer);
    Atomics.store(this.flags, STOP, 1);
    if (!this.worker) return;
    Atomics.notify(this.flags, STOP);
    Atomics.wait(this.flags, CLOSED, 0, STOP_WAIT_MS);
    void this.worker.terminate();
  }
}
