import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { CrawliteError } from '../../crawlite-error.js';
import { movableBytes } from '../../pipeline/movable-bytes.js';
import type {
  AppliedControl,
  ClaimedUrl,
  CommitResult,
  ControlPort,
  FrontierPort,
  Lease,
  PageOutcome,
  PageSinkPort,
  StoredSummary,
} from '../../pipeline/ports.js';
import { SqliteControl } from '../control/sqlite-control.js';
import { ArchiveWriteError, asWriteError } from '../archive/archive-errors.js';
import { answerCalls, type AnswerCall } from './crawl-state-calls.js';
import { SqliteFrontier } from './sqlite-frontier.js';
import { SqlitePageSink } from './sqlite-page-sink.js';
import {
  CLOSE,
  CLOSED,
  type CrawlStateCall,
  type CrawlStateMethod,
  type CrawlStateOpen,
  type CrawlStateReady,
  type CrawlStateReply,
  type CrawlStateSetup,
  type CrossedError,
} from './crawl-state-protocol.js';

/** The thread that writes the crawl's pages ended while the crawl needed it (out of memory, killed from outside). */
export class CrawlStateThreadError extends CrawliteError {
  constructor(how: string) {
    super('CRAWL_STATE_THREAD', `writing stopped: the archive's writer thread ${how}; what was committed is kept, run resume to go on`);
  }
}

// From sources (the tests' in-process runs) the worker is the compiled one: a worker thread runs only JavaScript.
const WORKER = fileURLToPath(
  import.meta.url.endsWith('.ts')
    ? new URL('../../../dist/storage/crawl-state/crawl-state-worker.js', import.meta.url)
    : new URL('./crawl-state-worker.js', import.meta.url),
);

/**
 * An outcome as it crosses to the thread, and the buffers moved with it rather than copied (a 30 MiB body
 * would otherwise be held three times over): bodies and screenshots.
 */
function crossable(outcome: PageOutcome, transfer: Set<ArrayBuffer>): PageOutcome {
  const move = (bytes: Uint8Array): Uint8Array => {
    const moved = movableBytes(bytes);
    transfer.add(moved.buffer as ArrayBuffer);
    return moved;
  };
  const { response, exchanges, screenshot } = outcome;
  if (!response && !exchanges && !screenshot) return outcome;
  const moved: PageOutcome = { ...outcome };
  if (response) moved.response = { ...response, body: move(response.body), ...(response.stored ? { stored: move(response.stored) } : {}) };
  if (exchanges)
    moved.exchanges = exchanges.map((exchange) => ({
      ...exchange,
      response: { ...exchange.response, body: move(exchange.response.body) },
    }));
  if (screenshot) moved.screenshot = { ...screenshot, data: move(screenshot.data) };
  return moved;
}

const YOUNG_GENERATION_MB = 8;

let running = 0;

/** Crawl-state threads of this process running now: none once each crawl has ended. */
export function crawlStateThreadsRunning(): number {
  return running;
}

interface Waiting {
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
}

/**
 * The crawl's frontier and page sink, served by a thread of their own on a
 * second connection to the archive. SQLite's writes (a page's rows, its
 * links, its text and the search index's share of it) then take none of the
 * main thread's time, which keeps to HTTP, scheduling and the pipeline.
 * Every call is answered in the order it was made; a page's body moves to
 * the thread with its commit (see PageSinkPort). A page is committed
 * when its commit answers, as with the sink on this thread: the crash
 * promise is unchanged. `close` ends the thread and its connection; it must
 * come before the archive leaves WAL mode.
 */
export class CrawlStateThread {
  readonly frontier: FrontierPort;
  readonly sink: PageSinkPort;
  /** Requests from other processes, applied on the thread's connection, and the crawl's live row. */
  readonly control: ControlPort;
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private failure: unknown;
  private closing = false;
  /** Resolves once the thread's connection is closed, or the thread has ended. */
  private readonly closed: Promise<void>;
  private onClosed!: () => void;

  /** The thread has its connection open: calls go to it from now on. */
  private ready = false;
  /** Calls answered on the caller's connection, until the thread is ready. */
  private readonly here: AnswerCall | undefined;

  /**
   * Starts the thread, which opens the archive for a run: it must be migrated and in WAL mode, and the run
   * recorded. Given the caller's connection (and the frontier it has on it for this crawl, if any), calls are
   * answered on it until the thread is ready (it takes a moment to load and open), rather than keep a crawl's
   * first requests waiting; each of those is done when it answers, so the thread takes over from a settled
   * archive. A crawl that ends first never needs it.
   */
  constructor(
    private readonly setup: CrawlStateSetup,
    here?: { db: Database; frontier?: SqliteFrontier },
  ) {
    if (here) {
      const frontier = here.frontier ?? new SqliteFrontier(here.db, setup.crawl);
      this.here = answerCalls(frontier, new SqlitePageSink(here.db, setup.path, setup.runId, setup.limits), new SqliteControl(here.db));
    }
    // What the thread allocates (the pages it is sent) lives until their commit only: a small young generation keeps its memory down.
    this.worker = new Worker(WORKER, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    running += 1;
    this.worker.unref();
    this.closed = new Promise((resolve) => {
      this.worker.once('exit', () => {
        running -= 1;
        resolve();
      });
      this.onClosed = resolve;
    });
    this.worker.on('message', (message: CrawlStateReply | CrawlStateReady | typeof CLOSED) => {
      if (message === CLOSED) {
        // The connection is closed: what waits for it goes on while the thread ends by itself.
        this.worker.unref();
        return this.onClosed();
      }
      if ('ready' in message) {
        if (message.ready) this.ready = true;
        else this.fail(this.rebuilt(message.failure));
        return;
      }
      const waiting = this.waiting.get(message.id);
      if (!waiting) return;
      this.waiting.delete(message.id);
      // Once closing, the thread keeps the process alive until it has ended.
      if (this.waiting.size === 0 && !this.closing) this.worker.unref();
      if ('failure' in message) waiting.reject(this.rebuilt(message.failure));
      else waiting.resolve(message.value as never);
    });
    this.worker.on('error', (error) => this.fail(new CrawlStateThreadError(`failed: ${error.message}`)));
    this.worker.once('exit', (code) => this.fail(new CrawlStateThreadError(this.closing ? 'ended' : `exited with code ${code}`)));
    this.frontier = {
      claimFrom: (origin, limit, only) => this.call<ClaimedUrl[]>('claimFrom', [origin, limit, only]),
      queuedOrigins: () => this.call<string[]>('queuedOrigins', []),
      release: (claim) => this.call<void>('release', [claim]),
      claimOwn: (url) => this.call<ClaimedUrl | undefined>('claimOwn', [url]),
      renew: (claims) => this.call<(Lease | undefined)[]>('renew', [claims]),
      storedResponse: (key) => this.call<StoredSummary | undefined>('storedResponse', [key]),
      pagesFetched: () => this.call<number>('pagesFetched', []),
      requeueRobotsUnavailable: (origin) => this.call<number>('requeueRobotsUnavailable', [origin]),
      // One process paces its own requests: nothing to share, as with the frontier on this thread.
      sent: async () => {},
      paceRetry: async () => {},
    };
    const commitAll = (outcomes: PageOutcome[]) => {
      if (!this.ready) return this.call<CommitResult[]>('commitAll', [outcomes]);
      const transfer = new Set<ArrayBuffer>();
      return this.call<CommitResult[]>('commitAll', [outcomes.map((outcome) => crossable(outcome, transfer))], [...transfer]);
    };
    this.sink = { commitAll, commit: async (outcome) => (await commitAll([outcome]))[0]! };
    this.control = {
      waiting: () => this.call<{ upTo: number; exclusions: string[] }>('waitingControl', []),
      applyWaiting: (upTo) => this.call<AppliedControl[]>('applyControl', [upTo]),
      writeLive: (live) => this.call<void>('writeLive', [live]),
    };
    this.worker.postMessage({ open: setup } satisfies CrawlStateOpen);
  }

  /** Closes the thread's connection once the calls made are answered, and ends the thread. */
  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      // Waited for: the thread keeps the process alive until its connection is closed.
      this.worker.ref();
      // A thread not ready, and owing no answer, need not finish loading or opening first: ending it closes what it opened.
      if (this.ready || this.waiting.size > 0) this.worker.postMessage(CLOSE);
      else void this.worker.terminate();
    }
    await this.closed;
  }

  private call<T>(method: CrawlStateMethod, args: unknown[], transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new CrawlStateThreadError('was asked to write after the crawl ended'));
    if (!this.ready && this.here) return this.here(method, args) as Promise<T>;
    const id = (this.nextId += 1);
    return new Promise<T>((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve: resolve as (value: never) => void, reject });
      this.worker.postMessage({ id, method, args } satisfies CrawlStateCall, transfer);
    });
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const { reject } of waiting) reject(this.failure);
  }

  /** The error the sink or frontier raised on the thread, raised again here as it would have been on this thread. */
  private rebuilt(failure: CrossedError): unknown {
    const error = Object.assign(new Error(failure.message), failure.code === undefined ? {} : { code: failure.code });
    const { path } = this.setup;
    return failure.write ? new ArchiveWriteError(path, { cause: error }) : asWriteError(path, error);
  }
}
