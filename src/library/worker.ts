import { hostname } from 'node:os';
import { EMPTY, Subject, type Observable } from 'rxjs';
import type { FetchReport } from '../pipeline/crawl-item.js';
import { checkOptionValue, InvalidOptionError } from '../pipeline/validate-crawl-options.js';
import type { FetchEventType, RunNotice } from '../run/run-events.js';
import { startWorker } from '../run/worker-run.js';
import { allStates, checkConnection, type FrontierConnection, type FrontierCounts } from './frontier.js';
import { version } from './package-version.js';

/** One worker of a shared crawl (`initFrontier`): the crawl's roots and options come from the frontier. */
export interface WorkerInput extends FrontierConnection {
  /** This worker's shard: a new file (created if missing), or this crawl's shard to go on with; anything else is refused. */
  db: string;
  /** Requests in flight for this worker (not stored); the crawl's stored concurrency otherwise. */
  concurrency?: number;
  /** ms a claimed URL stays this worker's without renewal; a dead worker's URLs are claimed again after it. Default 60000. */
  leaseMs?: number;
  /** Shown by frontierStatus(); default `host:pid`. */
  name?: string;
  /** The User-Agent when the crawl stored none; default `crawlite/<version>`. */
  userAgent?: string;
}

/**
 * The connection to the frontier was lost: the worker waits and tries again; told once per outage. Or the
 * worker follows what `crawlite control` asked of the crawl's workers (paused, resumed, another change).
 */
export type WorkerNotice =
  | {
      kind: 'frontier-lost';
      /** Why, as the driver said it. */
      reason: string;
    }
  | Extract<RunNotice, { kind: 'paused' | 'resumed' | 'controlled' }>;

export type WorkerEvent = { type: FetchEventType; report: FetchReport } | { type: 'notice'; notice: WorkerNotice };

export interface WorkerReport {
  archive: string;
  name: string;
  // Spelled out rather than taken from run/: the published declarations would then reach the SQLite driver's types.
  /** `finished`: the frontier has nothing left; `limit`: the crawl's maxPages reached; `interrupted`: stop() was called. */
  endedBy: 'finished' | 'limit' | 'interrupted';
  /** URLs this worker finished (done, failed or skipped). */
  finished: number;
}

export interface WorkerHandle {
  /** One event per URL this worker finished, and a notice per outage; completes when the worker ends. */
  events: Observable<WorkerEvent>;
  /**
   * Resolves once the shard is closed; rejects with a CrawliteError subclass (PG_UNREACHABLE, NO_FRONTIER,
   * ARCHIVE_NOT_A_SHARD for an archive with a crawl or pages of its own, SHARD_OF_OTHER_CRAWL, ...).
   */
  done: Promise<WorkerReport>;
  /** Stops as Ctrl-C does: requests in flight get 5 s to finish; what is left goes back to the frontier. */
  stop(): void;
  /** This worker's requests on the wire now. */
  inFlight(): number;
  /**
   * URLs by state over the whole crawl (all workers), counted in PostgreSQL when called: a count as long as
   * the frontier, so call it every few seconds, not per event. Undefined before the worker is connected.
   */
  totals(): Promise<FrontierCounts | undefined>;
}

/** The smallest lease the command line accepts: shorter ones would be renewed all the time. */
const MIN_LEASE_MS = 100;

function checkWholeNumber(option: string, value: unknown, min: number, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new InvalidOptionError(option, `${option} must be a whole number${what} of at least ${min}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function checkInput(input: WorkerInput) {
  const connection = checkConnection(input);
  if (typeof input.db !== 'string' || input.db === '' || input.db === ':memory:') {
    throw new InvalidOptionError('db', 'db must be the path of the shard file, e.g. "shard-1.sqlite"');
  }
  if (input.name !== undefined && (typeof input.name !== 'string' || input.name === ''))
    throw new InvalidOptionError('name', 'name must be a non-empty string');
  return {
    connection,
    dbPath: input.db,
    ...(input.concurrency === undefined ? {} : { concurrency: checkWholeNumber('concurrency', input.concurrency, 1, '') }),
    ...(input.leaseMs === undefined ? {} : { leaseMs: checkWholeNumber('leaseMs', input.leaseMs, MIN_LEASE_MS, ' of ms') }),
    name: input.name ?? `${hostname()}:${process.pid}`,
    userAgent: input.userAgent === undefined ? `crawlite/${version}` : checkOptionValue('userAgent', input.userAgent),
  };
}

/**
 * Crawls from the shared PostgreSQL frontier into the shard `db` until the frontier is finished, as
 * `crawlite worker`. Start as many as you like, in this process or others, each with its own shard;
 * merge the shards afterwards with merge(). Bad options reject with InvalidOptionError before connecting.
 */
export function crawlWorker(input: WorkerInput): WorkerHandle {
  let request: ReturnType<typeof checkInput>;
  try {
    request = checkInput(input);
  } catch (error) {
    return { events: EMPTY, done: Promise.reject(error), stop: () => undefined, inFlight: () => 0, totals: async () => undefined };
  }
  const events = new Subject<WorkerEvent>();
  const worker = startWorker({
    ...request,
    owner: { pid: process.pid, host: hostname() },
    onFetch: (report) => {
      if (report.state !== 'stopped') events.next({ type: report.state === 'done' ? 'fetched' : report.state, report });
    },
    onNotice: (notice) => {
      if (notice.kind === 'paused' || notice.kind === 'resumed' || notice.kind === 'controlled') events.next({ type: 'notice', notice });
    },
    onOutage: (error) =>
      events.next({ type: 'notice', notice: { kind: 'frontier-lost', reason: error instanceof Error ? error.message : String(error) } }),
  });
  const done = worker.done
    .then((result): WorkerReport => ({ archive: request.dbPath, name: request.name, ...result }))
    .finally(() => events.complete());
  return {
    events: events.asObservable(),
    done,
    stop: () => worker.stop(),
    inFlight: () => worker.inFlight(),
    totals: async () => {
      const counted = await worker.totals();
      return counted && allStates(counted);
    },
  };
}
