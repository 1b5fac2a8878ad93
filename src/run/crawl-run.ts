import { lastValueFrom, Observable, Subject, tap } from 'rxjs';
import type { CrawlOptions } from '../pipeline/crawl-options.js';
import { CrawlStop } from '../pipeline/crawl-stop.js';
import { CrawlControls } from '../pipeline/crawl-controls.js';
import type { ControlSettingsChange } from '../pipeline/ports.js';
import { asWriteError, NothingToRecrawlError, NothingToResumeError } from '../storage/archive/index.js';
import type { ArchiveReport, RootState } from '../storage/reader/index.js';
import { LockedArchive, type CrawlStateThread, type RunEnd } from '../storage/crawl-state/index.js';
import { checkBrowser } from './page-renderer.js';
import { prepareArchive } from './prepare-archive.js';
import type { RunEvent, StateCounts } from './run-events.js';
import type { CheckedRequest } from './run-request.js';
import { startCrawl } from './start-crawl.js';
import { steerCrawl } from './steer-crawl.js';

/** Requests in flight get this long to finish after a stop before they are aborted. */
export const STOP_GRACE_MS = 5_000;

/** How a run ended, with what it needs to be reported. */
export interface RunResult {
  runId: number;
  endedBy: Exclude<RunEnd, 'failed'>;
  roots: string[];
  options: CrawlOptions;
  /** How each root ended: a run where none was fetched found nothing. */
  rootStates: RootState[];
  /** This run's report, unless the request asked for none. */
  report?: ArchiveReport;
}

/** A run under way. */
export interface CrawlRun {
  /** Notices, then `started`, then one event per URL finished; completes when the run ends, however it ends. */
  events: Observable<RunEvent>;
  /** Resolves once the archive is closed; rejects with the error that ended the run (disk errors as ArchiveWriteError). */
  done: Promise<RunResult>;
  /** Stops claiming, lets requests in flight finish for a grace period, then aborts them; the archive stays resumable. */
  stop(): void;
  /** HTTP requests on the wire now. */
  inFlight(): number;
  /** The archive's URLs by state (zero until it is open). */
  stateCounts(): StateCounts;
}

const NO_COUNTS: StateCounts = { queued: 0, fetching: 0, done: 0, failed: 0, skipped: 0 };

/**
 * Starts a run: opens (or creates) the archive and locks it, prepares it,
 * crawls, records the run's end and closes the archive. The work begins
 * after the caller's current task, so events subscribed to at once are all seen.
 */
export function startCrawlRun(request: CheckedRequest): CrawlRun {
  const events = new Subject<RunEvent>();
  const stop = new CrawlStop();
  let archive: LockedArchive | undefined;
  let inFlight = () => 0;

  async function run(): Promise<RunResult> {
    const notify = (notice: Extract<RunEvent, { type: 'notice' }>['notice']) => events.next({ type: 'notice', notice });
    checkBrowser(request.given);
    archive = await LockedArchive.open(request.dbPath, request.mode, request.owner, {
      onWait: (message) => notify({ kind: 'waiting-for-reader', message }),
      refuseShard: true,
    }).catch((error: unknown) => {
      throw request.recrawl && error instanceof NothingToResumeError ? new NothingToRecrawlError(request.dbPath) : error;
    });
    const opened = archive;
    let state: CrawlStateThread | undefined;
    try {
      // Requests left while no crawl ran come first: the run starts as they ask (paused, excluding...), its counts after them.
      const waiting = opened.applyControlRequests();
      const prepared = prepareArchive(opened, request, notify);
      // A resume of a --browser crawl needs its browser as much as the crawl did.
      checkBrowser(prepared.options);
      const controls = startingControls(opened, prepared.options, request.given);
      if (controls.paused) notify({ kind: 'paused', by: controls.paused, atStart: true });
      const started = startCrawl(opened, prepared, stop, request.session, controls);
      const { runId, roots, running, renderer } = started;
      state = started.state;
      inFlight = () => running.inFlight();
      events.next({ type: 'started', runId, roots, options: prepared.options });
      if (waiting.some((applied) => applied.command === 'stop')) stop.request(STOP_GRACE_MS);
      const steering = steerCrawl({
        control: state.control,
        controls,
        running,
        stop: () => stop.request(STOP_GRACE_MS),
        stopping: () => stop.stopping,
        dbPath: request.dbPath,
        notify,
      });
      const fetches = running.reports.pipe(
        tap((report) => {
          if (report.state !== 'stopped') events.next({ type: report.state === 'done' ? 'fetched' : report.state, report });
        }),
      );
      let endedBy: RunEnd = 'failed';
      try {
        await lastValueFrom(
          withProgress(fetches, request.progressEveryMs, () =>
            events.next({ type: 'progress', counts: opened.urlStateCounts(), inFlight: running.inFlight() }),
          ),
          { defaultValue: undefined },
        );
        endedBy = stop.stopping ? 'interrupted' : running.limitReached() ? 'limit' : 'finished';
      } finally {
        await steering.close();
        // No browser process outlives the run, however it ends.
        await renderer?.close().catch(() => undefined);
        // Every commit the crawl waited for is answered: the thread's connection closes before the run's end is written.
        await state.close();
        try {
          prepared.record.endRun(runId, endedBy, new Date());
          opened.liveEnded();
        } catch {
          // The write that failed the crawl may fail again; the run then ends at its last page.
        }
      }
      return {
        runId,
        // Only a run that threw ended as 'failed'.
        endedBy: endedBy as RunResult['endedBy'],
        roots,
        options: prepared.options,
        rootStates: opened.rootStates(prepared.seeds),
        ...(request.report === false ? {} : { report: opened.archiveReport(runId) }),
      };
    } catch (error) {
      // A full or failing disk may be met by any write (a claim, a page, the run's end), not only a page's.
      throw asWriteError(request.dbPath, error);
    } finally {
      // The archive leaves WAL mode only once it is the last connection.
      await state?.close();
      archive.close();
    }
  }

  const done = Promise.resolve()
    .then(run)
    .finally(() => {
      stop.dispose();
      events.complete();
    });
  return {
    events: events.asObservable(),
    done,
    stop: () => stop.request(STOP_GRACE_MS),
    inFlight: () => inFlight(),
    stateCounts: () => (archive?.isOpen ? archive.urlStateCounts() : NO_COUNTS),
  };
}

/** Settings a run's command line gives win over those `crawlite control set` stored. */
const SETTING_OPTIONS = ['concurrency', 'perHost', 'delayMs', 'minFreeDisk'] as const satisfies readonly (keyof ControlSettingsChange)[];

/** The controls the run starts with: the stored ones (pause, settings, live exclusions) over its options. */
function startingControls(archive: LockedArchive, options: CrawlOptions, given: Partial<CrawlOptions>): CrawlControls {
  const { stored, exclusions } = archive.controlsAtStart(SETTING_OPTIONS.filter((key) => given[key] !== undefined));
  return new CrawlControls(
    {
      concurrency: stored.concurrency ?? options.concurrency,
      perHost: stored.perHost ?? options.perHost,
      delayMs: stored.delayMs ?? options.delayMs,
      minFreeDisk: stored.minFreeDisk ?? options.minFreeDisk,
    },
    { ...(stored.pausedBy ? { paused: stored.pausedBy } : {}), exclude: options.exclude, liveExclude: exclusions },
  );
}

/** The fetches, with a progress tick every `everyMs` while they last. */
function withProgress<T>(fetches: Observable<T>, everyMs: number | undefined, tick: () => void): Observable<T> {
  if (everyMs === undefined) return fetches;
  return new Observable<T>((subscriber) => {
    const timer = setInterval(() => {
      try {
        tick();
      } catch {
        // A count that cannot be read now is shown at the next tick; the crawl meets any real disk error itself.
      }
    }, everyMs);
    const subscription = fetches.subscribe(subscriber);
    return () => {
      clearInterval(timer);
      subscription.unsubscribe();
    };
  });
}
