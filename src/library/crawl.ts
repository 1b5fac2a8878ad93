import { EMPTY, type Observable } from 'rxjs';
import type { CrawlOptions } from '../pipeline/crawl-options.js';
import { InvalidOptionError } from '../pipeline/validate-crawl-options.js';
import type { RunEvent } from '../run/run-events.js';
import type { ArchiveReport, RootState } from '../storage/public.js';
import { SESSION_KEYS, type SessionOptions } from './session-options.js';
import type { QaReport } from './qa.js';
import { startRun, type RunInput, type RunKind } from './start-run.js';

/** A new crawl, or more of an existing one: its roots, its archive file, and any crawl option (the command line's defaults). */
export interface CrawlInput extends Partial<CrawlOptions>, SessionOptions {
  /** Start URLs; a root without a scheme gets http://. */
  roots: string[];
  /** The archive file, created if missing; an archive with a crawl in it goes on with these roots added. */
  db: string;
}

/** An existing crawl, with the roots and options stored in it; options given replace the stored ones from now on. */
export interface ResumeInput extends Partial<CrawlOptions>, SessionOptions {
  db: string;
  /** Queue the URLs that failed again, with fresh tries (as retry() and `crawlite retry`). */
  retryFailed?: boolean;
}

/** The next crawl of a finished archive, with its stored roots and options; options given replace the stored ones. */
export interface RecrawlInput extends Partial<CrawlOptions>, SessionOptions {
  db: string;
  /** Queue only the roots and visit again only what this crawl finds linked (`crawlite recrawl --only-linked`). */
  onlyLinked?: boolean;
}

export type CrawlEvent = RunEvent;

/** What `crawlite stats` prints for the run, and how the run ended. */
export interface CrawlReport extends ArchiveReport {
  archive: string;
  runId: number;
  // Spelled out rather than taken from run/: the published declarations would then reach the SQLite driver's types.
  /** `finished`: nothing left to fetch; `limit`: maxPages reached; `interrupted`: stop() was called. */
  endedBy: 'finished' | 'limit' | 'interrupted';
  /** How each root ended; if none was fetched, the crawl found nothing (the command line exits 1). */
  roots: RootState[];
  /** With `qa: true`, unless the crawl was stopped: how faithfully its pages replay (as qa()). */
  qa?: QaReport;
}

export interface CrawlHandle {
  /** Notices, `started`, one event per URL finished, `progress` every second; completes when the run ends. */
  events: Observable<CrawlEvent>;
  /** The run's report once the archive is closed; rejects with a CrawliteError subclass (its `code` says which). */
  done: Promise<CrawlReport>;
  /** Stops as Ctrl-C does: requests in flight get 5 s to finish, the archive stays resumable. */
  stop(): void;
}

/** How often a `progress` event comes. */
const PROGRESS_EVERY_MS = 1_000;
const NOT_CRAWL_OPTIONS: readonly string[] = ['roots', 'db', 'retryFailed', 'onlyLinked', ...SESSION_KEYS];

function failed(error: unknown): CrawlHandle {
  return { events: EMPTY, done: Promise.reject(error), stop: () => undefined };
}

/** A flat input (options and session side by side, as a caller writes them) as one run of `kind`. */
function start(
  kind: RunKind,
  input: CrawlInput | ResumeInput | RecrawlInput,
  more: Pick<RunInput, 'roots' | 'onlyLinked'> = {},
): CrawlHandle {
  try {
    if (typeof input !== 'object' || input === null) throw new InvalidOptionError('options', 'give an options object: { roots, db, ... }');
    const entries = Object.entries(input);
    const options = Object.fromEntries(entries.filter(([key]) => !NOT_CRAWL_OPTIONS.includes(key))) as Partial<CrawlOptions>;
    const session = Object.fromEntries(
      entries.filter(([key, value]) => (SESSION_KEYS as readonly string[]).includes(key) && value !== undefined),
    ) as SessionOptions;
    const run = startRun({ kind, db: input.db, ...more, options, session, progressEveryMs: PROGRESS_EVERY_MS });
    const done = run.done.then((outcome): CrawlReport => ({
      archive: outcome.archive,
      runId: outcome.runId,
      endedBy: outcome.endedBy,
      roots: outcome.roots,
      ...outcome.report!,
      ...(outcome.qa ? { qa: outcome.qa } : {}),
    }));
    return { events: run.events, done, stop: () => run.stop() };
  } catch (error) {
    return failed(error);
  }
}

/**
 * Crawls `roots` into the archive `db` and resolves with the run's report.
 * Bad options reject with InvalidOptionError (or InvalidRootError) before any file is opened;
 * an archive another crawl writes rejects with ArchiveBusyError.
 */
export function crawl(input: CrawlInput): CrawlHandle {
  if (!Array.isArray(input?.roots) || input.roots.length === 0 || !input.roots.every((root) => typeof root === 'string')) {
    return failed(new InvalidOptionError('roots', 'roots must be a non-empty array of URLs'));
  }
  return start('crawl', input, { roots: input.roots });
}

/** Goes on with the crawl stored in `db` (after stop(), a crash or a limit), as `crawlite resume` does. */
export function resume(input: ResumeInput): CrawlHandle {
  return start(input?.retryFailed ? 'retry' : 'resume', input);
}

/** Queues the URLs of `db` that failed again, with fresh tries, and goes on with the crawl, as `crawlite retry` does. */
export function retry(input: Omit<ResumeInput, 'retryFailed'>): CrawlHandle {
  return start('retry', input);
}

/**
 * Crawls a finished archive again, as `crawlite recrawl` does: every capture is kept, unchanged pages are
 * asked for conditionally, and the `changes` view says what changed. An unfinished crawl rejects with
 * UnfinishedCrawlError (resume it first); an archive without a crawl with NothingToRecrawlError.
 */
export function recrawl(input: RecrawlInput): CrawlHandle {
  return start('recrawl', input, { onlyLinked: input?.onlyLinked === true });
}
