import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { EMPTY, type Observable } from 'rxjs';
import type { CrawlOptions } from '../pipeline/crawl-options.js';
import { InvalidOptionError, validateCrawlOptions } from '../pipeline/validate-crawl-options.js';
import { startCrawlRun } from '../run/crawl-run.js';
import type { RunEvent } from '../run/run-events.js';
import { checkRunRequest, type RunRequest } from '../run/run-request.js';
import type { ArchiveReport, RootState } from '../storage/public.js';
import { sessionFromOptions, type SessionOptions } from './session-options.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

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
  /** Queue the URLs that failed again, with fresh tries (as `crawlite retry`). */
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
const NOT_CRAWL_OPTIONS = ['roots', 'db', 'headers', 'cookies', 'proxy', 'retryFailed', 'onlyLinked'] as const;

function failed(error: unknown): CrawlHandle {
  return { events: EMPTY, done: Promise.reject(error), stop: () => undefined };
}

/** The crawl options among the input, checked; absent ones stay absent so stored ones show through. */
function givenOptions(input: object): Partial<CrawlOptions> {
  const given = Object.fromEntries(
    Object.entries(input).filter(([key, value]) => value !== undefined && !(NOT_CRAWL_OPTIONS as readonly string[]).includes(key)),
  ) as Partial<CrawlOptions>;
  validateCrawlOptions({ ...given, userAgent: given.userAgent ?? `crawlite/${version}` });
  return given;
}

function start(input: CrawlInput | ResumeInput | RecrawlInput, request: Pick<RunRequest, 'mode' | 'roots' | 'retryFailed' | 'recrawl'>): CrawlHandle {
  try {
    if (typeof input !== 'object' || input === null) throw new InvalidOptionError('options', 'give an options object: { roots, db, ... }');
    if (typeof input.db !== 'string') throw new InvalidOptionError('db', 'db must be the path of the archive file, e.g. "site.sqlite"');
    const given = givenOptions(input);
    const session = sessionFromOptions(input);
    const checked = checkRunRequest({
      ...request,
      dbPath: input.db,
      given,
      userAgent: `crawlite/${version}`,
      owner: { pid: process.pid, host: hostname() },
      session,
      progressEveryMs: PROGRESS_EVERY_MS,
    });
    const run = startCrawlRun(checked);
    const done = run.done.then(
      (result): CrawlReport => ({ archive: input.db, runId: result.runId, endedBy: result.endedBy, roots: result.rootStates, ...result.report! }),
    );
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
  return start(input, { mode: 'create', roots: input.roots });
}

/** Goes on with the crawl stored in `db` (after stop(), a crash or a limit), as `crawlite resume` does. */
export function resume(input: ResumeInput): CrawlHandle {
  return start(input, { mode: 'existing', roots: [], ...(input?.retryFailed ? { retryFailed: true } : {}) });
}

/**
 * Crawls a finished archive again, as `crawlite recrawl` does: every capture is kept, unchanged pages are
 * asked for conditionally, and the `changes` view says what changed. An unfinished crawl rejects with
 * UnfinishedCrawlError (resume it first); an archive without a crawl with NothingToRecrawlError.
 */
export function recrawl(input: RecrawlInput): CrawlHandle {
  return start(input, { mode: 'existing', roots: [], recrawl: { onlyLinked: input?.onlyLinked === true } });
}
