import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CrawliteError } from '../../crawlite-error.js';
import type { ClaimedUrl, CommitResult, FrontierPort, Lease, PageOutcome, PageSinkPort, StoredSummary } from '../../pipeline/ports.js';
import { ArchiveWriteError, asWriteError } from '../archive/archive-errors.js';
import { CLOSE, type CrawlStateCall, type CrawlStateMethod, type CrawlStateReady, type CrawlStateReply, type CrawlStateSetup, type CrossedError } from './crawl-state-protocol.js';

/** The thread that writes the crawl's pages ended while the crawl needed it (out of memory, killed from outside). */
export class CrawlStateThreadError extends CrawliteError {
  constructor(how: string) {
    super('CRAWL_STATE_THREAD', `writing stopped: the archive's writer thread ${how}; what was committed is kept, run resume to go on`);
  }
}

// From sources (the tests' in-process runs) the worker is the compiled one: a worker thread runs only JavaScript.
const WORKER = fileURLToPath(
  import.meta.url.endsWith('.ts') ? new URL('../../../dist/storage/crawl-state/crawl-state-worker.js', import.meta.url) : new URL('./crawl-state-worker.js', import.meta.url),
);

/** A view that is not the whole of its buffer would cross with all of that buffer (Node pools small allocations): only its bytes are sent. */
const own = (bytes: Uint8Array): Uint8Array => (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes));

function crossable(outcome: PageOutcome): PageOutcome {
  const { response, exchanges, screenshot } = outcome;
  if (!response && !exchanges && !screenshot) return outcome;
  const moved: PageOutcome = { ...outcome };
  if (response) moved.response = { ...response, body: own(response.body) };
  if (exchanges) moved.exchanges = exchanges.map((exchange) => ({ ...exchange, response: { ...exchange.response, body: own(exchange.response.body) } }));
  if (screenshot) moved.screenshot = { ...screenshot, data: own(screenshot.data) };
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
 * Every call is answered in the order it was made, and a page is committed
 * when its commit answers, as with the sink on this thread: the crash
 * promise is unchanged. `close` ends the thread and its connection; it must
 * come before the archive leaves WAL mode.
 */
export class CrawlStateThread {
  readonly frontier: FrontierPort;
  readonly sink: PageSinkPort;
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private failure: unknown;
  private closing = false;
  private readonly exited: Promise<void>;

  constructor(private readonly setup: CrawlStateSetup) {
    // What the thread allocates (the pages it is sent) lives until their commit only: a small young generation keeps its memory down.
    this.worker = new Worker(WORKER, { workerData: setup, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    running += 1;
    this.worker.unref();
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        running -= 1;
        resolve();
      }),
    );
    this.worker.on('message', (message: CrawlStateReply | CrawlStateReady) => {
      if ('ready' in message) {
        if (!message.ready) this.fail(this.rebuilt(message.failure));
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
    this.worker.once('exit', (code) => {
      if (!this.closing) this.fail(new CrawlStateThreadError(`exited with code ${code}`));
    });
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
    const commitAll = (outcomes: PageOutcome[]) => this.call<CommitResult[]>('commitAll', [outcomes.map(crossable)]);
    this.sink = { commitAll, commit: async (outcome) => (await commitAll([outcome]))[0]! };
  }

  /** Ends the thread once the calls made are answered, and closes its connection. */
  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      // Waited for: the thread keeps the process alive until its connection is closed.
      this.worker.ref();
      this.worker.postMessage(CLOSE);
    }
    await this.exited;
  }

  private call<T>(method: CrawlStateMethod, args: unknown[]): Promise<T> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new CrawlStateThreadError('was asked to write after the crawl ended'));
    const id = (this.nextId += 1);
    return new Promise<T>((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve: resolve as (value: never) => void, reject });
      this.worker.postMessage({ id, method, args } satisfies CrawlStateCall);
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
    return failure.write ? new ArchiveWriteError(this.setup.path, { cause: error }) : asWriteError(this.setup.path, error);
  }
}
