import { hostname } from 'node:os';
import type { Observable } from 'rxjs';
import type { CrawlOptions } from '../pipeline/crawl-options.js';
import { checkCrawlOptions, InvalidOptionError, type NameOption } from '../pipeline/validate-crawl-options.js';
import { startCrawlRun } from '../run/crawl-run.js';
import type { RunEvent, StateCounts } from '../run/run-events.js';
import { checkRunRequest, type CheckedRequest } from '../run/run-request.js';
import type { ArchiveReport, LockOwner, RootState } from '../storage/public.js';
import { version } from './package-version.js';
import type { QaReport } from './qa.js';
import { checkSession, type NameSessionOption, type SessionOptions } from './session-options.js';

/** `crawl`: new roots (the file may be new); `resume`: go on; `retry`: failed URLs again with fresh tries; `recrawl`: the next crawl of a finished archive. */
export type RunKind = 'crawl' | 'resume' | 'retry' | 'recrawl';

/** One run of a crawl into an archive, whichever kind. */
export interface RunInput {
  kind: RunKind;
  /** The archive file. */
  db: string;
  /** Start URLs, for `crawl` (a root without a scheme gets http://); the others go on with the stored ones. */
  roots?: string[];
  /** `recrawl`: queue only the roots and visit again only what this crawl finds linked. */
  onlyLinked?: boolean;
  /** Crawl options given: they replace the stored ones and are stored; absent ones keep the stored value or the default. */
  options?: Partial<CrawlOptions>;
  /** Headers, cookies and proxy: used, never stored. */
  session?: SessionOptions;
  /** The User-Agent when none is given or stored; default `crawlite/<version>`. */
  defaultUserAgent?: string;
  /** Named in the archive while this run writes it; this process by default. */
  owner?: LockOwner;
  /** Extra facts to keep in the archive (the demo marks its own). */
  marks?: Record<string, unknown>;
  /** Whether the run's end reads the archive's full report (slow on a big archive). Default true. */
  report?: boolean;
  /** A `progress` event this often, in ms; none when absent. */
  progressEveryMs?: number;
  /** With the `qa` option: told once before the replay check's first page (done 0), then after each page. */
  onQaProgress?: (progress: { done: number; total: number }) => void;
}

/** How refusals name the options: by default as this API spells them (`maxPages`, `proxy`); a command line passes its flags'. */
export interface OptionSpelling {
  option: NameOption;
  session: NameSessionOption;
}

/** How a run ended. */
export interface RunOutcome {
  archive: string;
  runId: number;
  // Spelled out rather than taken from run/: the published declarations would then reach the SQLite driver's types.
  /** `finished`: nothing left to fetch; `limit`: maxPages reached; `interrupted`: stop() was called. */
  endedBy: 'finished' | 'limit' | 'interrupted';
  /** How each root ended; if none was fetched, the crawl found nothing. */
  roots: RootState[];
  /** The options the run used: given, stored and defaults. */
  options: CrawlOptions;
  /** The run's report, unless `report: false`. */
  report?: ArchiveReport;
  /** With the `qa` option, unless the run was stopped: how faithfully its pages replay (as qa()). */
  qa?: QaReport;
}

export interface RunHandle {
  /** Notices, `started`, one event per URL finished, `progress` when asked for; completes when the run ends. */
  events: Observable<RunEvent>;
  /** Resolves once the archive is closed; rejects with a CrawliteError subclass (its `code` says which). */
  done: Promise<RunOutcome>;
  /** Stops as Ctrl-C does: requests in flight get 5 s to finish, the archive stays resumable. */
  stop(): void;
  /** HTTP requests on the wire now. */
  inFlight(): number;
  /** The archive's URLs by state (zero until it is open). */
  stateCounts(): StateCounts;
}

/** A run whose input was checked; nothing is opened until start(). */
export interface PreparedRun {
  start(): RunHandle;
}

const KINDS: readonly RunKind[] = ['crawl', 'resume', 'retry', 'recrawl'];

/**
 * Checks a run's input once, whatever the kind and whoever calls (the library's crawl(), resume(), retry(),
 * recrawl(), or the command line): the archive's path, the roots, every crawl option and the session.
 * Throws InvalidOptionError (or InvalidRootError, NoArchiveFileError) before any file is opened.
 */
export function prepareRun(input: RunInput, spelling?: OptionSpelling): PreparedRun {
  if (typeof input !== 'object' || input === null) throw new InvalidOptionError('options', 'give an options object: { roots, db, ... }');
  if (!KINDS.includes(input.kind)) throw new InvalidOptionError('kind', `kind must be one of ${KINDS.join(', ')}`);
  if (typeof input.db !== 'string') throw new InvalidOptionError('db', 'db must be the path of the archive file, e.g. "site.sqlite"');
  const roots = input.kind === 'crawl' ? input.roots : [];
  if (!Array.isArray(roots) || (input.kind === 'crawl' && roots.length === 0) || !roots.every((root) => typeof root === 'string')) {
    throw new InvalidOptionError('roots', 'roots must be a non-empty array of URLs');
  }
  const given = Object.fromEntries(Object.entries(input.options ?? {}).filter(([, value]) => value !== undefined)) as Partial<CrawlOptions>;
  checkCrawlOptions(given, spelling?.option);
  const session = checkSession(input.session ?? {}, spelling?.session);
  const checked: CheckedRequest = checkRunRequest({
    dbPath: input.db,
    mode: input.kind === 'crawl' ? 'create' : 'existing',
    roots,
    given,
    userAgent: input.defaultUserAgent ?? `crawlite/${version}`,
    owner: input.owner ?? { pid: process.pid, host: hostname() },
    session,
    ...(input.kind === 'retry' ? { retryFailed: true } : {}),
    ...(input.kind === 'recrawl' ? { recrawl: { onlyLinked: input.onlyLinked === true } } : {}),
    ...(input.marks ? { marks: input.marks } : {}),
    ...(input.report === false ? { report: false } : {}),
    ...(input.progressEveryMs !== undefined ? { progressEveryMs: input.progressEveryMs } : {}),
  });
  return {
    start() {
      const run = startCrawlRun(checked);
      // Stops the replay check that may follow the crawl, as stop() stops the crawl.
      const control = new AbortController();
      const done = run.done.then(async (result): Promise<RunOutcome> => {
        const outcome: RunOutcome = {
          archive: input.db,
          runId: result.runId,
          endedBy: result.endedBy,
          roots: result.rootStates,
          options: result.options,
          ...(result.report ? { report: result.report } : {}),
        };
        if (!result.options.qa || result.endedBy === 'interrupted' || control.signal.aborted) return outcome;
        const { qa } = await import('./qa.js');
        const report = await qa({
          db: input.db,
          ...(result.options.chromium !== undefined ? { chromium: result.options.chromium } : {}),
          ...(input.owner ? { owner: input.owner } : {}),
          ...(input.onQaProgress ? { onProgress: input.onQaProgress } : {}),
          signal: control.signal,
        });
        return { ...outcome, qa: report };
      });
      const stop = () => {
        control.abort();
        run.stop();
      };
      return { events: run.events, done, stop, inFlight: () => run.inFlight(), stateCounts: () => run.stateCounts() };
    },
  };
}

/** Checks and starts a run at once: the one way crawl(), resume(), retry() and recrawl() begin. */
export function startRun(input: RunInput, spelling?: OptionSpelling): RunHandle {
  return prepareRun(input, spelling).start();
}
