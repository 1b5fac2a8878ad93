import { randomUUID } from 'node:crypto';
import { lastValueFrom, tap } from 'rxjs';
import type pg from 'pg';
import type { PageRenderer } from '../pipeline/renderer.js';
import { checkBrowser, openRenderer } from './page-renderer.js';
import { httpFetcher } from '../http/http-fetcher.js';
import { crawl, type Crawl } from '../pipeline/crawl.js';
import { CrawlControls } from '../pipeline/crawl-controls.js';
import { PgControl } from '../pg/pg-control.js';
import type { RunNotice } from './run-events.js';
import { steerCrawl } from './steer-crawl.js';
import type { FetchReport } from '../pipeline/crawl-item.js';
import { DEFAULT_OPTIONS, type CrawlOptions } from '../pipeline/crawl-options.js';
import { CrawlStop } from '../pipeline/crawl-stop.js';
import { connectFrontier } from '../pg/pg-connect.js';
import { stateTotals } from '../pg/frontier-status.js';
import { heartbeat, readCrawl, upgradeFrontier } from '../pg/frontier-store.js';
import { PgFrontier } from '../pg/pg-frontier.js';
import { PgShardSink } from '../pg/pg-shard-sink.js';
import { robotsRules } from '../pipeline/robots/robots-rules.js';
import { isConnectionError } from '../pg/pg-errors.js';
import { Outage } from './outage.js';
import type { LockOwner } from '../storage/archive/index.js';
import { LockedArchive, type RunEnd } from '../storage/crawl-state/index.js';
import { STOP_GRACE_MS } from './crawl-run.js';

export const DEFAULT_LEASE_MS = 60_000;

export interface WorkerRequest {
  /** A PostgreSQL connection string; undefined for PGHOST and the rest. */
  connection: string | undefined;
  /** This worker's shard: an archive file of its own. */
  dbPath: string;
  /** Requests in flight for this worker (not stored); the crawl's stored concurrency otherwise. */
  concurrency?: number;
  leaseMs?: number;
  /** Shown in `frontier status`. */
  name: string;
  userAgent: string;
  owner: LockOwner;
  onFetch?: (report: FetchReport) => void;
  /** Told once per outage (at most once a minute), when the connection to the frontier is lost (the worker waits and goes on). */
  onOutage?: (error: unknown) => void;
  /** Told when the worker pauses, resumes or follows another change asked with `crawlite control`. */
  onNotice?: (notice: RunNotice) => void;
}

export interface WorkerResult {
  endedBy: Exclude<RunEnd, 'failed'>;
  /** URLs this worker finished (done, failed or skipped). */
  finished: number;
}

export interface WorkerRun {
  done: Promise<WorkerResult>;
  stop(): void;
  /** Requests of this worker on the wire now. */
  inFlight(): number;
  /** URLs by state over the whole crawl, all workers' (a count in PostgreSQL); undefined before the worker is connected. */
  totals(): Promise<Record<string, number> | undefined>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * A worker of a shared crawl: claims from the PostgreSQL frontier, writes
 * pages into its own shard, and goes on until the frontier has nothing
 * queued or leased. Its own pipeline ending is not the crawl's end: other
 * workers may still find URLs, or die and leave leases to run out, so it
 * looks again (every half lease, at most a second) until all is finished.
 */
export function startWorker(request: WorkerRequest): WorkerRun {
  const stop = new CrawlStop();
  const leaseMs = request.leaseMs ?? DEFAULT_LEASE_MS;
  const id = `${request.name}/${randomUUID()}`;
  let connected: pg.Pool | undefined;
  let current: Crawl | undefined;

  async function run(pool: pg.Pool): Promise<WorkerResult> {
    const stored = await readCrawl(pool, request.connection);
    // A worker replays nothing: --qa runs where the crawl ends, not in its shards.
    checkBrowser({ ...(stored.options as Partial<CrawlOptions>), qa: false });
    // The shard is checked first, before anything is written to it or to the frontier: a crawl's archive, or another frontier's shard, is refused.
    const shardOf = { frontier: stored.made, roots: stored.roots, options: stored.options };
    const archive = await LockedArchive.open(request.dbPath, 'create', request.owner, { shardOf });
    const { record } = archive;
    const options: CrawlOptions = {
      ...DEFAULT_OPTIONS,
      userAgent: request.userAgent,
      ...(stored.options as Partial<CrawlOptions>),
      ...(request.concurrency ? { concurrency: request.concurrency } : {}),
    };
    let beat: NodeJS.Timeout | undefined;
    let endedBy: RunEnd = 'failed';
    let runId: number | undefined;
    let finished = 0;
    let limited = false;
    let renderer: PageRenderer | undefined;
    let steering: { close(): Promise<void> } | undefined;
    try {
      await upgradeFrontier(pool);
      // What `crawlite control` asked of the crawl's workers: this one starts as it stands (paused, its pace, its exclusions).
      const { control, initial } = await PgControl.start(pool);
      const controls = new CrawlControls(
        {
          concurrency: request.concurrency ?? initial.settings.concurrency ?? options.concurrency,
          perHost: initial.settings.perHost ?? options.perHost,
          delayMs: initial.settings.delayMs ?? options.delayMs,
          minFreeDisk: initial.settings.minFreeDisk ?? options.minFreeDisk,
        },
        {
          ...(initial.pausedBy ? { paused: initial.pausedBy } : {}),
          exclude: options.exclude,
          liveExclude: initial.exclusions.filter((pattern) => !options.exclude.includes(pattern)),
        },
      );
      if (initial.pausedBy) request.onNotice?.({ kind: 'paused', by: initial.pausedBy, atStart: true });
      steering = steerCrawl({
        control,
        controls,
        running: { inFlight: () => current?.inFlight() ?? 0, queued: (origins) => current?.queued(origins) },
        stop: () => stop.request(STOP_GRACE_MS),
        stopping: () => stop.stopping,
        dbPath: request.dbPath,
        notify: (notice) => request.onNotice?.(notice),
      });
      await heartbeat(pool, id, request.name);
      beat = setInterval(() => void heartbeat(pool, id, request.name).catch(() => undefined), Math.min(10_000, leaseMs / 2));
      beat.unref();
      record.save(stored.roots, stored.options, {
        shardOf: request.connection ? 'postgresql' : 'postgresql (PGHOST)',
        frontier: stored.made,
      });
      runId = record.startRun(options, new Date());
      // --max-per-path is judged in the frontier, over all workers: the shard records what it decided.
      const pages = archive.pageSink(runId, { maxDepth: options.maxDepth });
      const worker = { id, leaseMs };
      // --per-host caps all workers together only when the crawl set it: otherwise each worker's own concurrency is its cap.
      const given = stored.options as Partial<CrawlOptions>;
      const frontier = new PgFrontier(pool, worker, { perHost: given.perHost, delayMs: given.delayMs }, stop.stopRequested);
      const crawlDelayMs = (robotsUrl: string, answer: { status: number; body: Uint8Array }) =>
        robotsRules(robotsUrl, answer, options.userAgent).crawlDelayMs;
      const limits = { maxPerPath: options.maxPerPath, maxDepth: options.maxDepth };
      const sink = new PgShardSink(pool, worker, archive.shardPageSink(pages), limits, crawlDelayMs);
      const outage = new Outage(stop.stopRequested, request.onOutage);
      renderer = openRenderer(options);
      const rendering = renderer ? { renderer: () => renderer! } : {};
      for (;;) {
        const running = crawl({ frontier, sink, fetcher: httpFetcher(options), ...rendering }, stored.roots, options, stop, controls);
        current = running;
        try {
          // Pages stored in the shard whose commit to the frontier an outage cut are kept or taken back before anything is claimed.
          await sink.settle();
          // Nothing of this process is in flight between rounds: what it still leases (an outage cut it off) goes back at once.
          await frontier.releaseMine();
          await lastValueFrom(
            running.reports.pipe(
              tap((report) => {
                outage.over();
                if (report.state !== 'stopped') finished += 1;
                request.onFetch?.(report);
              }),
            ),
            { defaultValue: undefined },
          );
          // Past --max-pages (counted over all workers) the rest stays queued: looking again would find only that.
          limited = running.limitReached();
          if (stop.stopping || limited || (await frontier.unfinished()) === 0) break;
        } catch (error) {
          // What this worker held when the connection went is given back by the next round's releaseMine (or runs out).
          if (!isConnectionError(error)) throw error;
          if (stop.stopping) break;
          await outage.wait(error);
          continue;
        }
        await sleep(Math.min(1_000, leaseMs / 2), stop.stopRequested);
      }
      // Stopped during an outage, or a commit of an earlier round failed late: settled if the frontier answers now.
      if (sink.unsettled > 0) await sink.settle().catch(() => undefined);
      endedBy = stop.stopping ? 'interrupted' : limited ? 'limit' : 'finished';
      return { endedBy, finished };
    } finally {
      await steering?.close();
      clearInterval(beat);
      await renderer?.close().catch(() => undefined);
      try {
        if (runId !== undefined) record.endRun(runId, endedBy, new Date());
      } finally {
        archive.close();
      }
    }
  }

  const done = (async () => {
    const pool = await connectFrontier(request.connection, 8);
    connected = pool;
    try {
      return await run(pool);
    } finally {
      connected = undefined;
      stop.dispose();
      await pool.end().catch(() => undefined);
    }
  })();
  return {
    done,
    stop: () => stop.request(STOP_GRACE_MS),
    inFlight: () => current?.inFlight() ?? 0,
    totals: async () => (connected ? stateTotals(connected) : undefined),
  };
}
