import { lastValueFrom, tap } from 'rxjs';
import { CrawliteError } from '../crawlite-error.js';
import { crawl } from '../pipeline/crawl.js';
import { DEFAULT_OPTIONS, type CrawlOptions } from '../pipeline/crawl-options.js';
import { CrawlStop } from '../pipeline/crawl-stop.js';
import type { FetchReport } from '../pipeline/crawl-item.js';
import { compilePatterns } from '../pipeline/scope.js';
import { asWriteError, NothingToResumeError } from '../storage/archive-errors.js';
import { archiveReport, rootStates, urlStateCounts } from '../storage/archive-report.js';
import { CrawlRecord, type RunEnd } from '../storage/crawl-record.js';
import { openCrawlArchive, type CrawlArchive } from '../storage/open-crawl-archive.js';
import { SqliteFrontier } from '../storage/sqlite-frontier.js';
import { SqlitePageSink } from '../storage/sqlite-page-sink.js';
import { asFlag, asValue, type GivenOptions } from './crawl-flags.js';
import { FetchLogFile } from './fetch-log-file.js';
import { formatFetch } from './fetch-log.js';
import { ProgressDisplay, type ProgressMode } from './progress-display.js';
import { formatReport } from './format-report.js';
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, type CliIo } from './io.js';
import { resolveRoots } from './resolve-roots.js';
import { missingSessionSettings, type GivenSession, type SessionNote } from './session-flags.js';
import { requeueFailed } from '../storage/requeue-failed.js';

export type Verbosity = 'quiet' | 'normal' | 'verbose';

export interface CrawlRequest {
  dbPath: string;
  /** `create` for crawl and demo (the file may be new), `existing` for resume. */
  mode: 'create' | 'existing';
  /** Roots as typed; none for resume. */
  roots: string[];
  given: GivenOptions;
  verbosity: Verbosity;
  /** Extra facts to keep in the archive (the demo marks its own). */
  marks?: Record<string, unknown>;
  /** --log FILE: one JSON line per fetch. */
  logFile?: string;
  /** `crawlite retry`: failed URLs are queued again with fresh tries. */
  retryFailed?: boolean;
  /** Headers, cookies and proxy: used, never stored. */
  session?: GivenSession;
}

/** Requests in flight get this long to finish after Ctrl-C before they are aborted. */
const STOP_GRACE_MS = 5_000;

export class NoArchiveFileError extends CrawliteError {
  constructor(path: string) {
    super('NO_ARCHIVE_FILE', `${JSON.stringify(path)} is not an archive file: name a file such as site.sqlite (a database in memory would keep nothing to query or resume)`);
  }
}

/** Options given that change the stored ones, as typed: `--max-pages 300 (was 150)`. */
function describeChanges(stored: Record<string, unknown>, given: GivenOptions): string[] {
  return (Object.entries(given) as [keyof GivenOptions, unknown][])
    .filter(([key, value]) => JSON.stringify(stored[key]) !== JSON.stringify(value))
    .map(([key, value]) => `${asFlag(key, value)} (was ${asValue(key, stored[key])})`);
}

/** Opens (or creates) the archive, runs the crawl to the end or to a stop, and prints the report. */
export async function runCrawl(request: CrawlRequest, io: CliIo): Promise<number> {
  const say = (line: string) => request.verbosity !== 'quiet' && io.stderr(`${line}\n`);
  // SQLite takes "" and ":memory:" as databases that vanish on close: a crawl into them would be lost.
  if (request.dbPath.trim() === '' || request.dbPath === ':memory:') throw new NoArchiveFileError(request.dbPath);
  const givenRoots = resolveRoots(request.roots);
  compilePatterns(request.given.exclude ?? [], '--exclude');
  compilePatterns(request.given.include ?? [], '--include');

  const log = request.logFile ? new FetchLogFile(request.logFile) : undefined;
  let archive: CrawlArchive;
  try {
    archive = await openCrawlArchive(request.dbPath, request.mode, io.owner, { onWait: say });
  } catch (error) {
    log?.close();
    throw error;
  }
  const { db } = archive;
  try {
    const record = new CrawlRecord(db);
    const storedRoots = record.roots();
    const storedOptions = record.options();
    if (request.mode === 'existing' && !storedRoots) throw new NothingToResumeError(request.dbPath);

    const roots = [...new Set([...(storedRoots ?? []), ...givenRoots.map((root) => root.url)])];
    // Options given are stored, so the next resume runs as this one does (the default User-Agent is not
    // stored: it names the running version).
    const saved = { ...(storedOptions ?? DEFAULT_OPTIONS), ...request.given };
    const options: CrawlOptions = { ...DEFAULT_OPTIONS, userAgent: `crawlite/${io.version}`, ...saved } as CrawlOptions;
    const sessionNote = request.session?.note ?? { headers: [], cookies: false, proxy: false };
    const missing = missingSessionSettings(record.get('session') as SessionNote | undefined, sessionNote);
    record.save(roots, saved, { ...request.marks, session: sessionNote });

    const frontier = new SqliteFrontier(db);
    const requeued = frontier.requeueInFlight();
    if (request.retryFailed) {
      const retried = requeueFailed(db);
      say(`${retried} failed URL${retried === 1 ? '' : 's'} queued again with fresh tries`);
    }
    const seeds = resolveRoots(roots);
    frontier.addRoots(seeds);
    if (options.sitemaps) {
      const origins = [...new Set(seeds.map((seed) => seed.origin))];
      frontier.addRoots(resolveRoots(origins.map((origin) => `${origin}/sitemap.xml`)).map((seed) => ({ ...seed, kind: 'sitemap' as const })));
    }
    if (storedOptions) {
      // Index counts only: the full report reads every response, too slow before a big archive starts.
      const before = urlStateCounts(db);
      say(`resuming ${request.dbPath}: ${before.done} done, ${before.queued} queued` + (requeued ? `, ${requeued} left in flight by the last run are queued again` : ''));
      const changes = describeChanges(storedOptions, request.given);
      if (changes.length) say(`stored for this archive from now on: ${changes.join(', ')}`);
    } else {
      say(`crawling ${roots.join(' ')} into ${request.dbPath} (concurrency ${options.concurrency})`);
    }

    if (missing) say(`note: ${missing}`);
    const runId = record.startRun(options, new Date());
    const sink = new SqlitePageSink(db, request.dbPath, runId, { maxPerPath: options.maxPerPath, maxDepth: options.maxDepth });
    const stop = new CrawlStop();
    const running = crawl({ frontier, sink }, roots, options, stop, request.session?.build(roots));
    const mode: ProgressMode = request.verbosity === 'quiet' ? 'none' : io.isTTY && io.statusStream ? 'live' : 'plain';
    const progress = await ProgressDisplay.create(mode, io.statusStream && mode === 'live' ? io.statusStream : { write: io.stderr }, () => urlStateCounts(db), () => running.inFlight());
    // The notice answers a key the user pressed: shown even with -q, above the live status line, at once.
    const unlisten = io.onInterrupt(() => {
      if (!stop.stopping) {
        const inFlight = running.inFlight();
        progress.line(`stopping: finishing ${inFlight} request${inFlight === 1 ? '' : 's'} in flight (Ctrl-C again to quit now; resume continues)`);
      }
      stop.request(STOP_GRACE_MS);
    }, `crawlite: stopped at once; continue with: crawlite resume ${request.dbPath}\n`);
    progress.start();
    const onFetch = (fetch: FetchReport) => {
      if (fetch.state === 'stopped') return;
      progress.count(fetch);
      log?.write(fetch);
      if (request.verbosity === 'verbose' || (request.verbosity === 'normal' && fetch.state === 'failed')) progress.line(formatFetch(fetch));
    };
    let ended: RunEnd = 'failed';
    try {
      await lastValueFrom(running.reports.pipe(tap(onFetch)), { defaultValue: undefined });
      ended = stop.stopping ? 'interrupted' : running.limitReached() ? 'limit' : 'finished';
    } finally {
      progress.stop();
      unlisten();
      stop.dispose();
      try {
        record.endRun(runId, ended, new Date());
      } catch {
        // The write that failed the crawl may fail again; the run then ends at its last page.
      }
    }
    if (request.verbosity !== 'quiet') io.stdout(`${formatReport(request.dbPath, archiveReport(db, runId), 'run')}\n`);
    if (ended === 'limit') say(`stopped at --max-pages ${options.maxPages}; crawlite resume ${request.dbPath} --max-pages <more> goes on`);
    if (ended === 'interrupted') {
      say(`stopped; continue with: crawlite resume ${request.dbPath}`);
      return EXIT_INTERRUPTED;
    }
    // An exhausted frontier is a success only if some root answered; a typo or a dead host is not.
    const rootEnds = rootStates(db, seeds);
    if (rootEnds.every((root) => root.state === 'failed' || root.state === 'skipped')) {
      for (const root of rootEnds) io.stderr(`crawlite: no root could be fetched: ${root.url}: ${root.state}${root.error ? `: ${root.error}` : ''}\n`);
      return EXIT_FAILURE;
    }
    return EXIT_OK;
  } catch (error) {
    // A full or failing disk may be met by any write (a claim, a page, the run's end), not only a page's.
    throw asWriteError(request.dbPath, error);
  } finally {
    archive.close();
    log?.close();
  }
}
