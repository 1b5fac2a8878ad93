import { fileURLToPath } from 'node:url';
import { threadId, Worker } from 'node:worker_threads';
import { CrawliteError } from '../../crawlite-error.js';
import { movableBytes } from '../movable-bytes.js';
import { THREAD_READY, THREAD_STOP, type ParseRequest, type ParseThreadData, type ThreadMessage } from './parse-protocol.js';
import { endThread, newStopFlag, stopAsked, stoppable } from '../thread-stop.js';
import type { ParseJob, ParseResult, ParseSettings } from './parse-response.js';
import { readResponse } from './read-response.js';

/** A parse thread ended while the crawl needed it (out of memory, a bug, killed from outside). */
export class ParseThreadError extends CrawliteError {
  constructor(how: string) {
    super('PARSE_THREAD', `parsing stopped: a parse thread ${how}`);
  }
}

/** A parsed response: what it says, its body (handed back by the thread), the body's SHA-256 and SHA-1, and the thread that read it. */
export interface Parsed {
  result: ParseResult;
  body: Buffer;
  sha256: Buffer;
  sha1: Buffer;
  /** What the archive stores for the body when it is compressed (--compact and it pays); absent otherwise. */
  stored?: Buffer;
  threadId: number;
}

// From sources (the tests' in-process CLI) the worker is the compiled one: a worker thread runs only JavaScript.
const WORKER = fileURLToPath(
  import.meta.url.endsWith('.ts')
    ? new URL('../../../dist/pipeline/parse/parse-worker.js', import.meta.url)
    : new URL('./parse-worker.js', import.meta.url),
);

const YOUNG_GENERATION_MB = 6;

let running = 0;

/** Parse threads of this process running now, in every pool: none once each crawl has ended. */
export function parseThreadsRunning(): number {
  return running;
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

interface Pending {
  resolve: (parsed: Parsed) => void;
  reject: (error: Error) => void;
}

class ParseThread {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  private outbox: ParseRequest[] = [];
  /** Loaded and listening (a thread takes a few hundred milliseconds to load its modules). */
  ready = false;
  readonly started: Promise<void>;
  private onReady!: () => void;
  /** Set when the pool closes; the thread reads it before each response. */
  private readonly stop = newStopFlag();
  /** Whether any response was sent to it: one never given work can be terminated at once. */
  private given = false;

  constructor(onGone: (thread: ParseThread, error: Error) => void) {
    this.started = new Promise((resolve) => (this.onReady = resolve));
    // Parsing makes short-lived garbage only; a small young generation keeps the thread's memory down at no measured cost.
    this.worker = new Worker(WORKER, {
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      workerData: { stop: this.stop } satisfies ParseThreadData,
    });
    running += 1;
    stoppable(this.worker, { flag: this.stop, wake: THREAD_STOP, idleSinceStart: () => !this.given });
    // An idle thread does not keep the process alive; one holding a response does.
    this.worker.unref();
    this.worker.on('message', (replies: ThreadMessage) => {
      if (replies === THREAD_READY) {
        this.ready = true;
        this.onReady();
        return;
      }
      for (const reply of replies) {
        const waiting = this.pending.get(reply.id);
        if (!waiting) continue;
        this.forget(reply.id);
        if ('failure' in reply) waiting.reject(new Error(`parsing failed: ${reply.failure}`));
        else
          waiting.resolve({
            result: reply.result,
            body: asBuffer(reply.body),
            sha256: asBuffer(reply.sha256),
            sha1: asBuffer(reply.sha1),
            ...(reply.stored ? { stored: asBuffer(reply.stored) } : {}),
            threadId: reply.threadId,
          });
      }
    });
    this.worker.on('error', (error) => onGone(this, new ParseThreadError(`failed: ${error.message}`)));
    this.worker.once('exit', (code) => {
      running -= 1;
      onGone(this, new ParseThreadError(stopAsked(this.stop) ? 'was ended' : `exited with code ${code}`));
    });
  }

  send(request: ParseRequest, waiting: Pending): void {
    this.given = true;
    const idle = this.pending.size === 0;
    if (idle) this.worker.ref();
    this.pending.set(request.id, waiting);
    // Responses read in one event-loop turn cross together, at its end: one message and one wake-up of the thread.
    if (this.outbox.push(request) === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const batch = this.outbox;
    this.outbox = [];
    this.worker.postMessage(
      batch,
      batch.map((request) => request.job.body.buffer as ArrayBuffer),
    );
  }

  private forget(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }
}

/**
 * Parses responses on worker threads, so the main thread keeps to I/O
 * and scheduling. A body's buffer is moved to the thread and back,
 * never copied, unless it is a slice of a shared buffer (Node pools small
 * allocations), which is copied so the pool is not detached. Each response
 * goes to the ready thread with the fewest in hand; until one is ready, the
 * first pages are parsed here rather than wait for a thread to load (they
 * are all a crawl has to go on). close() ends the threads.
 */
export class ParsePool {
  private readonly threads: ParseThread[];
  private nextId = 0;
  private closed = false;
  private failure: Error | undefined;

  constructor(size: number) {
    this.threads = Array.from({ length: Math.max(1, size) }, () => new ParseThread((thread, error) => this.lost(thread, error)));
  }

  /** Parses one response; its body is unusable here until the answer gives it back. */
  parse(job: ParseJob, settings: ParseSettings): Promise<Parsed> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new ParseThreadError('was asked to parse after the crawl ended'));
    let thread: ParseThread | undefined;
    for (const next of this.threads) if (next.ready && (!thread || next.pending.size < thread.pending.size)) thread = next;
    if (!thread) return parseHere(job, settings);
    const moved = movableBytes(job.body);
    return new Promise<Parsed>((resolve, reject) => {
      thread.send({ id: (this.nextId += 1), job: { ...job, body: moved }, settings }, { resolve, reject });
    });
  }

  /** Resolves once every thread is ready. */
  async started(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.started));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Never while a thread may be inside zlib (a --compact body, a gzipped sitemap): see thread-stop.ts.
    await Promise.all(this.threads.map((thread) => endThread(thread.worker)));
  }

  private lost(thread: ParseThread, error: Error): void {
    const waiting = [...thread.pending.values()];
    thread.pending.clear();
    if (this.closed) return;
    // A lost thread ends the crawl: what it held is gone, and later responses would wait for it forever.
    this.failure ??= error;
    for (const { reject } of waiting) reject(error);
  }
}

/** What a thread does with a response, done on this thread. */
function parseHere(job: ParseJob, settings: ParseSettings): Promise<Parsed> {
  try {
    const { stored, ...read } = readResponse(job, settings);
    return Promise.resolve({ ...read, ...(stored ? { stored: asBuffer(stored) } : {}), body: asBuffer(job.body), threadId });
  } catch (error) {
    return Promise.reject(new Error(`parsing failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
  }
}
