import { DEFAULT_OPTIONS, type CrawlOptions } from '../pipeline/crawl-options.js';
import type { NormalizedUrl } from '../url/index.js';
import { NothingToRecrawlError, NothingToResumeError, UnfinishedCrawlError } from '../storage/archive/index.js';
import type { CrawlRecord, LockedArchive, SqliteFrontier } from '../storage/crawl-state/index.js';
import { mergeRoots, sitemapSeeds } from './root-seeds.js';
import { resolveRoots } from './resolve-roots.js';
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
  /** The crawl the run belongs to: the latest one, or the next for a re-crawl. */
  crawl: number;
  /** A re-crawl records its run together with what it queues, so a crash between them cannot split the two. */
  runId?: number;
}

/** Options given that change the stored ones. */
function changes(stored: Record<string, unknown>, given: Partial<CrawlOptions>): OptionChange[] {
  return (Object.entries(given) as [keyof CrawlOptions, unknown][])
    .filter(([key, value]) => JSON.stringify(stored[key]) !== JSON.stringify(value))
    .map(([option, value]) => ({ option, value, was: stored[option] }));
}

/** Stores the roots and options, queues what the crawl starts from, and tells what it found. */
export function prepareArchive(archive: LockedArchive, request: CheckedRequest, notify: (notice: RunNotice) => void): PreparedArchive {
  const { record } = archive;
  const storedRoots = record.roots();
  const storedOptions = record.options();
  if (request.recrawl && !storedRoots) throw new NothingToRecrawlError(request.dbPath);
  if (request.mode === 'existing' && !storedRoots) throw new NothingToResumeError(request.dbPath);
  if (request.recrawl) {
    const left = archive.unfinishedUrls();
    if (left > 0) throw new UnfinishedCrawlError(request.dbPath, left);
  }

  // Options given are stored, so the next resume runs as this one does (the default User-Agent is not
  // stored: it names the running version).
  const saved = { ...(storedOptions ?? DEFAULT_OPTIONS), ...request.given };
  const options = { ...DEFAULT_OPTIONS, userAgent: request.userAgent, ...saved } as CrawlOptions;
  // A browser crawl keeps a root's fragment: a hash-routed app's page is named by it.
  const given = options.browser ? resolveRoots(request.roots, { fragments: true }) : request.givenRoots;
  const seeds = mergeRoots(storedRoots ?? [], given, options.browser);
  const roots = seeds.map((seed) => seed.url);
  const session = request.session?.note ?? NO_SESSION;
  const missing = missingSession(record.get('session') as SessionNote | undefined, session);
  record.save(roots, saved, { ...request.marks, session });

  // A resume (or a crawl into a finished archive) goes on with the latest crawl; a re-crawl starts the next.
  const latest = archive.latestCrawl() ?? 1;
  const crawl = request.recrawl ? latest + 1 : latest;
  const frontier = archive.frontier(crawl);
  const requeued = frontier.requeueInFlight();
  if (request.retryFailed) notify({ kind: 'failed-requeued', count: archive.requeueFailed() });
  let runId: number | undefined;
  if (request.recrawl) {
    const keys = [...seeds, ...(options.sitemaps ? sitemapSeeds(seeds) : [])].map((seed) => seed.key);
    const started = archive.startRecrawl(options, crawl, request.recrawl.onlyLinked ? keys : undefined);
    runId = started.runId;
    notify({ kind: 'recrawling', crawl, queued: started.queued });
  }
  frontier.addRoots(seeds);
  if (options.sitemaps) frontier.addRoots(sitemapSeeds(seeds));
  // An --exclude given as a crawl goes on applies to what earlier runs queued, not only to what is found from now on.
  if (storedOptions && request.given.exclude?.length) {
    const count = archive.pruneExcluded(request.given.exclude);
    if (count > 0) notify({ kind: 'excluded-queued', count });
  }
  if (request.recrawl) {
    const changed = changes(storedOptions ?? {}, request.given);
    if (changed.length) notify({ kind: 'options-changed', changes: changed });
  } else if (storedOptions) {
    // Index counts only: the full report reads every response, too slow before a big archive starts.
    const before = archive.urlStateCounts();
    const complete = request.mode === 'existing' && !request.retryFailed && before.queued === 0 && before.fetching === 0;
    notify(
      complete
        ? { kind: 'complete', done: before.done, failed: before.failed, skipped: before.skipped }
        : { kind: 'resuming', done: before.done, queued: before.queued, requeued },
    );
    const changed = changes(storedOptions, request.given);
    if (changed.length) notify({ kind: 'options-changed', changes: changed });
  } else {
    notify({ kind: 'starting', roots, concurrency: options.concurrency });
  }
  if (missing) notify({ kind: 'session-missing', missing });
  return { record, frontier, seeds, options, crawl, ...(runId === undefined ? {} : { runId }) };
}
