import { CrawliteError } from '../crawlite-error.js';
import type { CrawlOptions } from '../pipeline/crawl-options.js';
import type { NormalizedUrl } from '../url/index.js';
import type { LockOwner } from '../storage/public.js';
import { resolveRoots } from './resolve-roots.js';
import type { RunSession } from './session.js';

/** What a run is asked to do; the options are checked by the caller (the command line or the library). */
export interface RunRequest {
  dbPath: string;
  /** `create`: the file may be new (crawl, demo); `existing`: it must hold a crawl (resume, retry). */
  mode: 'create' | 'existing';
  /** Roots as given; none to go on with the stored ones. */
  roots: string[];
  /** Options given: they replace the stored ones and are stored; absent ones keep the stored value or the default. */
  given: Partial<CrawlOptions>;
  /** The User-Agent when none is given or stored: it names the running version, so it is not stored. */
  userAgent: string;
  /** Named in the archive while this run writes it. */
  owner: LockOwner;
  /** Extra facts to keep in the archive (the demo marks its own). */
  marks?: Record<string, unknown>;
  /** Failed URLs are queued again with fresh tries. */
  retryFailed?: boolean;
  /**
   * Starts the next crawl of a finished archive (mode `existing`): every URL it holds is fetched again,
   * or with `onlyLinked` only the roots and what this crawl finds linked.
   */
  recrawl?: { onlyLinked: boolean };
  session?: RunSession;
  /** Whether the run's end computes the full report (it reads every response: slow on a big archive). Default true. */
  report?: boolean;
  /** Emit a `progress` event this often; none when absent. */
  progressEveryMs?: number;
}

/** A request whose path and roots were found usable, before anything is opened. */
export interface CheckedRequest extends RunRequest {
  givenRoots: NormalizedUrl[];
}

export class NoArchiveFileError extends CrawliteError {
  constructor(path: string) {
    super(
      'NO_ARCHIVE_FILE',
      `${JSON.stringify(path)} is not an archive file: name a file such as site.sqlite (a database in memory would keep nothing to query or resume)`,
    );
  }
}

/** Refuses what cannot be crawled (no file to keep, a root that is no URL) before any file is touched. */
export function checkRunRequest(request: RunRequest): CheckedRequest {
  // SQLite takes "" and ":memory:" as databases that vanish on close: a crawl into them would be lost.
  if (request.dbPath.trim() === '' || request.dbPath === ':memory:') throw new NoArchiveFileError(request.dbPath);
  return { ...request, givenRoots: resolveRoots(request.roots) };
}
