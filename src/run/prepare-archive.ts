import type { Database } from 'better-sqlite3';
import { DEFAULT_OPTIONS, type CrawlOptions } from '../pipeline/crawl-options.js';
import type { NormalizedUrl } from '../pipeline/normalize-url.js';
import { NothingToResumeError } from '../storage/archive-errors.js';
import { urlStateCounts } from '../storage/archive-report.js';
import { CrawlRecord } from '../storage/crawl-record.js';
import { requeueFailed } from '../storage/requeue-failed.js';
import { SqliteFrontier } from '../storage/sqlite-frontier.js';
import { mergeRoots, sitemapSeeds } from './root-seeds.js';
import type { CheckedRequest } from './run-request.js';
import type { OptionChange, RunNotice } from './run-events.js';
import { missingSession, NO_SESSION, type SessionNote } from './session.js';

/** An archive ready to crawl: its roots stored and queued, its options merged, its unfinished work queued again. */
export interface PreparedArchive {
  record: CrawlRecord;
  frontier: SqliteFrontier;
  /** Every root of the crawl, stored ones first. */
  seeds: NormalizedUrl[];
  options: CrawlOptions;
}

/** Options given that change the stored ones. */
function changes(stored: Record<string, unknown>, given: Partial<CrawlOptions>): OptionChange[] {
  return (Object.entries(given) as [keyof CrawlOptions, unknown][])
    .filter(([key, value]) => JSON.stringify(stored[key]) !== JSON.stringify(value))
    .map(([option, value]) => ({ option, value, was: stored[option] }));
}

/** Stores the roots and options, queues what the crawl starts from, and tells what it found. */
export function prepareArchive(db: Database, request: CheckedRequest, notify: (notice: RunNotice) => void): PreparedArchive {
  const record = new CrawlRecord(db);
  const storedRoots = record.roots();
  const storedOptions = record.options();
  if (request.mode === 'existing' && !storedRoots) throw new NothingToResumeError(request.dbPath);

  const seeds = mergeRoots(storedRoots ?? [], request.givenRoots);
  const roots = seeds.map((seed) => seed.url);
  // Options given are stored, so the next resume runs as this one does (the default User-Agent is not
  // stored: it names the running version).
  const saved = { ...(storedOptions ?? DEFAULT_OPTIONS), ...request.given };
  const options = { ...DEFAULT_OPTIONS, userAgent: request.userAgent, ...saved } as CrawlOptions;
  const session = request.session?.note ?? NO_SESSION;
  const missing = missingSession(record.get('session') as SessionNote | undefined, session);
  record.save(roots, saved, { ...request.marks, session });

  const frontier = new SqliteFrontier(db);
  const requeued = frontier.requeueInFlight();
  if (request.retryFailed) notify({ kind: 'failed-requeued', count: requeueFailed(db) });
  frontier.addRoots(seeds);
  if (options.sitemaps) frontier.addRoots(sitemapSeeds(seeds));
  if (storedOptions) {
    // Index counts only: the full report reads every response, too slow before a big archive starts.
    const before = urlStateCounts(db);
    notify({ kind: 'resuming', done: before.done, queued: before.queued, requeued });
    const changed = changes(storedOptions, request.given);
    if (changed.length) notify({ kind: 'options-changed', changes: changed });
  } else {
    notify({ kind: 'starting', roots, concurrency: options.concurrency });
  }
  if (missing) notify({ kind: 'session-missing', missing });
  return { record, frontier, seeds, options };
}
