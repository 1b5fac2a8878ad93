import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CrawliteError } from '../crawlite-error.js';
import { endThread, newStopFlag, stopAsked, stoppable } from '../pipeline/thread-stop.js';
import type { GzipBatch, GzipReply, GzipStop, GzipThreadData } from './gzip-protocol.js';

/** A gzip thread ended or failed while an export needed it (out of memory, a bug, killed from outside). */
export class GzipThreadError extends CrawliteError {
  constructor(how: string) {
    super('GZIP_THREAD', `export stopped: a gzip thread ${how}; no output was written`);
  }
}

// From sources (the tests' in-process CLI) the worker is the compiled one: a worker thread runs only JavaScript.
const WORKER = fileURLToPath(
  import.meta.url.endsWith('.ts')
    ? new URL('../../dist/export/gzip-worker.js', import.meta.url)
    : new URL('./gzip-worker.js', import.meta.url),
);

const live = new Set<GzipThread>();

/** Gzip threads of this process running now: none once each export has ended. */
export function gzipThreadsRunning(): number {
  return live.size;
}

/** Ends every gzip thread of this process as if it had died: how the tests see what an export does then. */
export async function killGzipThreads(): Promise<void> {
  await Promise.all([...live].map((thread) => thread.worker.terminate()));
}

interface Waiting {
  resolve: (members: Uint8Array[]) => void;
  reject: (error: Error) => void;
  bytes: number;
}

/**
 * A worker thread that compresses batches of records, each to its own gzip
 * member. A record's buffer moves to the thread and its member moves back;
 * the caller gives only buffers nothing else uses. close() ends the thread.
 */
export class GzipThread {
  readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private failure: Error | undefined;
  /** Set once by close(); the thread reads it before each record. */
  private readonly stop = newStopFlag();
  /** Record bytes sent and not answered yet: how much this thread has in hand. */
  pendingBytes = 0;

  constructor() {
    this.worker = new Worker(WORKER, { workerData: { stop: this.stop } satisfies GzipThreadData });
    live.add(this);
    stoppable(this.worker, { flag: this.stop, wake: { stop: true } satisfies GzipStop, idleSinceStart: () => this.nextId === 0 });
    // An idle thread does not keep the process alive; one holding records does.
    this.worker.unref();
    this.worker.on('message', (reply: GzipReply) => {
      const waiting = this.waiting.get(reply.id);
      if (!waiting) return;
      this.forget(reply.id, waiting);
      if ('failure' in reply) this.fail(new GzipThreadError(`failed: ${reply.failure}`));
      else waiting.resolve(reply.members);
    });
    this.worker.on('error', (error) => this.fail(new GzipThreadError(`failed: ${error.message}`)));
    this.worker.once('exit', (code) => {
      live.delete(this);
      this.fail(new GzipThreadError(stopAsked(this.stop) ? 'was ended' : `exited with code ${code}`));
    });
  }

  /** The records' members, in their order; the records' buffers are moved to the thread. */
  compress(records: Uint8Array[]): Promise<Uint8Array[]> {
    if (this.failure) return Promise.reject(this.failure);
    const bytes = records.reduce((sum, record) => sum + record.byteLength, 0);
    const batch: GzipBatch = { id: (this.nextId += 1), records };
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(batch.id, { resolve, reject, bytes });
      this.pendingBytes += bytes;
      this.worker.postMessage(batch, [...new Set(records.map((record) => record.buffer as ArrayBuffer))]);
    });
  }

  /** Ends the thread: it drops what it holds and ends by itself after the record in hand (see thread-stop.ts). */
  async close(): Promise<void> {
    await endThread(this.worker);
  }

  private forget(id: number, waiting: Waiting): void {
    this.waiting.delete(id);
    this.pendingBytes -= waiting.bytes;
    if (this.waiting.size === 0) this.worker.unref();
  }

  /** Everything sent is lost with the thread: what waits for it is told, and later batches are refused. */
  private fail(error: Error): void {
    this.failure ??= error;
    for (const [id, waiting] of [...this.waiting]) {
      this.forget(id, waiting);
      waiting.reject(this.failure);
    }
  }
}
