import { availableParallelism } from 'node:os';
import { concat, defer, finalize, ignoreElements, of, pipe, tap, type Observable, type OperatorFunction } from 'rxjs';
import type { ClaimedUrl, FrontierPort, PageSinkPort } from './ports.js';
import { CommitQueue } from './commit-queue.js';
import { DocumentShelf } from './document-shelf.js';
import type { CrawlItem, FetchReport } from './crawl-item.js';
import { MAX_URL_LENGTH, type CrawlOptions } from './crawl-options.js';
import type { CrawlStop } from './crawl-stop.js';
import { CrawlControls } from './crawl-controls.js';
import type { FetcherFactory } from './fetcher.js';
import type { RendererFactory } from './renderer.js';
import { claimFrontier, type RequestsDone } from './operators/claim-frontier.js';
import { fetchWithRetry, type Fetch } from './operators/fetch-with-retry.js';
import { followRedirects } from './operators/follow-redirects.js';
import { inScope } from './operators/in-scope.js';
import { obeyLiveExclusions } from './operators/obey-live-exclusions.js';
import { obeyRobots } from './operators/obey-robots.js';
import { parsePage, type ParseSettings } from './operators/parse-page.js';
import { ParsePool } from './parse/parse-pool.js';
import { persist } from './operators/persist.js';
import { renderPage } from './operators/render-page.js';
import { renderedExchanges } from './operators/rendered-exchanges.js';
import { SeenCache, seen } from './operators/seen.js';
import { withinLimits } from './operators/within-limits.js';
import { HostScheduler, type Task } from './politeness/host-scheduler.js';
import { fetchRobots } from './robots/fetch-robots.js';
import { RobotsBook } from './robots/robots-book.js';
import { compilePatterns, outOfScope, type ScopeRules } from './scope.js';
import { smallestLimit } from './link-budget.js';
import { LeaseKeeper } from './lease-keeper.js';

export interface CrawlPorts {
  frontier: FrontierPort;
  sink: PageSinkPort;
  /** Opened when the crawl starts, closed when it ends. */
  fetcher: FetcherFactory;
  /** With crawl --browser: opened when the crawl starts, closed when it ends. */
  renderer?: RendererFactory;
}

/** Recently committed URLs remembered to skip their insert; a fixed size, so memory stays flat. */
const SEEN_CACHE_SIZE = 50_000;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** A running crawl: its reports, whether it ended at --max-pages, and its requests in flight. */
export interface Crawl {
  reports: Observable<FetchReport>;
  limitReached(): boolean;
  /** HTTP requests on the wire now (a retry waiting out its backoff is not one). */
  inFlight(): number;
  /** URLs of these origins were queued from outside the pipeline: they are claimed as any other. */
  queued(origins: Iterable<string>): void;
}

/**
 * The crawl, in order: the scheduler picks a URL when a slot is free (after
 * its origin's robots.txt, within per-host limits); robots rules are
 * applied; the URL is fetched with retries; a redirect becomes a discovered
 * URL; the page is parsed; what it found is judged (scope, limits), deduplicated
 * and committed with it. Emits one report per request slot used.
 */
export function crawl(
  ports: CrawlPorts,
  roots: string[],
  options: CrawlOptions,
  stop: CrawlStop,
  // Steered from outside while it runs (pause, pace, exclusions); by default, the options as given.
  controls = new CrawlControls(
    { concurrency: options.concurrency, perHost: options.perHost, delayMs: options.delayMs, minFreeDisk: 0 },
    { exclude: options.exclude },
  ),
): Crawl {
  // Every claim and commit passes through the keeper, which renews the leases of claims still held.
  const leases = new LeaseKeeper(ports.frontier, ports.sink);
  const { frontier, sink } = leases;
  const book = new RobotsBook(options.robots);
  const scheduler = new HostScheduler(frontier, book, {
    get perHost() {
      return controls.perHost;
    },
    get delayMs() {
      return controls.delayMs;
    },
    maxPages: options.maxPages,
  });
  let requests = 0;
  const reports = defer(() => {
    const client = ports.fetcher({ onSent: (origin) => scheduler.sent(origin, Date.now()) });
    // A frontier shared by workers paces them all from the send of the claim it paced; its booking is not waited for, and a failed one is not the request's.
    const sent = (claim: ClaimedUrl) => () => void frontier.sent(claim).catch(() => undefined);
    const parseSettings: ParseSettings = {
      maxRedirects: options.maxRedirects,
      maxBodyBytes: options.maxBodyBytes,
      maxLinksPerPage: options.maxLinksPerPage,
      maxPages: options.maxPages,
      text: options.text,
      compact: options.compact,
    };
    // Parsing is the crawl's CPU work. This thread keeps a core busy with I/O and scheduling (SQLite has a thread of its own); the other cores parse.
    const parsers = new ParsePool(availableParallelism() - 1);
    const cache = new SeenCache(SEEN_CACHE_SIZE);
    const commits = new CommitQueue(sink);
    const scope: ScopeRules = {
      roots: roots.map((root) => new URL(root)),
      lenient: options.lenient,
      // Read at each check: `crawlite control` adds and takes away exclusions while the crawl runs.
      get exclude() {
        return controls.exclude;
      },
      get liveExclude() {
        return controls.liveExclude;
      },
      include: compilePatterns(options.include, '--include'),
      requisitesAnyHost: options.requisitesAnyHost,
    };
    // Only a browser crawl has hash routes, pages that share their document with another.
    const shelf = ports.renderer ? new DocumentShelf() : undefined;
    // Retries go through the host's pacing too (this worker's, and across workers where the frontier paces them): every request start on a host keeps the gap.
    const fetch: Fetch = async (claim, signal, attempt) => {
      if (attempt > 1) {
        await sleep(scheduler.reserveStart(new URL(claim.url).origin, Date.now()), signal);
        // Should the frontier fail to answer, the retry is paced by this worker alone rather than failing the URL.
        await frontier.paceRetry(claim, signal).catch(() => undefined);
      }
      // A hash route's document was fetched a moment ago: the site is not asked for it again.
      const shelved = claim.kind === 'page' ? shelf?.take(claim.url) : undefined;
      if (shelved) return shelved;
      requests += 1;
      try {
        const response = await client.get(claim.url, signal, claim.validators, sent(claim));
        if (claim.kind === 'page') shelf?.keep(claim.url, response);
        return response;
      } finally {
        requests -= 1;
      }
    };
    const fetchStage = fetchWithRetry(
      fetch,
      {
        maxTries: options.maxTries,
        retryDelayMs: options.retryDelayMs,
        onRetryAfter: (url, status, ms) => {
          if (status === 429 || status === 503) scheduler.pause(new URL(url).origin, ms, Date.now());
        },
      },
      stop.signal,
    );
    const commit: OperatorFunction<CrawlItem, FetchReport> = pipe(
      inScope(scope),
      withinLimits({
        traps: { maxUrlLength: MAX_URL_LENGTH, maxPathRepeats: options.maxPathRepeats },
        maxDepth: options.maxDepth,
        obeyNofollow: options.robots,
        requisites: options.requisites,
      }),
      seen(cache),
      persist(commits, frontier, (queued, revisitedOrigins) => {
        // One pass; a page's links mostly share one origin, so the scheduler is told of each origin once.
        let lastOrigin: string | undefined;
        const origins = new Set<string>(revisitedOrigins);
        for (const found of queued) {
          // A URL marked known is in the cache already (at this depth or closer): adding it again would change nothing.
          if (!found.known) cache.add(found.key, found.depth);
          if (found.origin !== lastOrigin) origins.add((lastOrigin = found.origin));
        }
        scheduler.noteWork(origins);
      }),
    );
    // Built once: each URL's pipeline only subscribes to them.
    const robotsRules = pipe(obeyLiveExclusions(controls), obeyRobots(book));
    const redirects = followRedirects(options.maxRedirects);
    const parse = parsePage(parseSettings, parsers);
    const renderer = ports.renderer?.();
    // What a rendered page may fetch follows the rules for requisites (--requisites-any-host lets CDNs in).
    const render = renderer ? renderPage(renderer, (url) => outOfScope(url, scope, 'requisite') === undefined, stop.signal) : undefined;
    const captured = renderedExchanges();
    const processTask = (task: Task, requestsDone: RequestsDone): Observable<FetchReport> =>
      task.type === 'robots'
        ? fetchRobots(task.origin, {
            frontier,
            book,
            userAgent: options.userAgent,
            sitemaps: options.sitemaps,
            maxUrls: smallestLimit(options.maxLinksPerPage, options.maxPages),
            fetch: fetchStage,
            commit,
            onRequeued: (origin) => scheduler.noteWork([origin]),
          })
        : of<CrawlItem>({ claim: task.claim, attempts: 0, state: 'pending', discovered: [] }).pipe(
            robotsRules,
            fetchStage,
            redirects,
            render ? pipe(render, tap(requestsDone), parse, captured) : pipe(tap(requestsDone), parse),
            commit,
          );
    // robots.txt that was unavailable in an earlier run is asked again: what it refused then gets its chance.
    const requeueRefused = defer(() => frontier.requeueRobotsUnavailable()).pipe(ignoreElements());
    const claimControl = {
      get stopping() {
        return stop.stopping;
      },
      stopRequested: stop.stopRequested,
      get paused() {
        return controls.paused !== undefined;
      },
      onChange: (listener: () => void) => controls.onChange(listener),
    };
    return concat(
      requeueRefused,
      claimFrontier(scheduler, () => controls.concurrency, claimControl, processTask),
    ).pipe(
      finalize(() => {
        leases.stop();
        void client.close();
        void parsers.close();
        void renderer?.close();
      }),
    );
  });
  return {
    reports,
    limitReached: () => scheduler.limitReached,
    inFlight: () => requests,
    queued: (origins) => {
      scheduler.noteWork(origins);
      controls.wake();
    },
  };
}
