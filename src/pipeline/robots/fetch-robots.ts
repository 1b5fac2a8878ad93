import { concat, defer, EMPTY, ignoreElements, map, mergeMap, of, type Observable, type OperatorFunction } from 'rxjs';
import type { ClaimedUrl, DiscoveredUrl, FrontierPort } from '../ports.js';
import type { CrawlItem, FetchReport } from '../crawl-item.js';
import { MAX_ROBOTS_REDIRECTS } from '../crawl-options.js';
import { discover } from '../discover.js';
import { LinkBudget } from '../link-budget.js';
import { REDIRECT_STATUSES } from '../operators/follow-redirects.js';
import { normalizeUrl, type NormalizedUrl } from '../normalize-url.js';
import type { RobotsBook } from './robots-book.js';
import { robotsRules } from './robots-rules.js';

export interface RobotsFetchDeps {
  frontier: FrontierPort;
  book: RobotsBook;
  userAgent: string;
  sitemaps: boolean;
  /** The per-response cap on URLs read (--max-links-per-page, and --max-pages for sitemaps); 0 for none. */
  maxUrls?: number;
  /** The crawl's fetch stage (retries, per-host pacing). */
  fetch: OperatorFunction<CrawlItem, CrawlItem>;
  /** The crawl's judge-and-commit stages, so robots.txt is stored like any page. */
  commit: OperatorFunction<CrawlItem, FetchReport>;
  /** URLs of the origin refused during an outage of its robots.txt were queued again. */
  onRequeued?: (origin: string) => void;
}

type Outcome = { status?: number; body?: Uint8Array; location?: string | null; error?: string };

/**
 * Fetches an origin's robots.txt before anything else there, following up
 * to five redirects, storing each response as a page of kind `robots`, and
 * records the rules. A robots.txt stored by an earlier run is read from the
 * archive instead of fetched again, unless it was a 5xx or never answered:
 * that one is asked for again.
 */
export function fetchRobots(origin: string, deps: RobotsFetchDeps): Observable<FetchReport> {
  const first = normalizeUrl('/robots.txt', origin) as NormalizedUrl;
  let backAfterOutage = false;
  const learn = (outcome: Outcome) => {
    const rules = robotsRules(first.url, outcome, deps.userAgent);
    if (deps.book.set(origin, rules)) backAfterOutage = true;
    return rules;
  };
  // Back after an outage earlier in this run: what the outage refused gets its chance now.
  const requeueRefused = (): Observable<never> =>
    defer(async () => {
      if (!backAfterOutage) return;
      backAfterOutage = false;
      if ((await deps.frontier.requeueRobotsUnavailable(origin)) > 0) deps.onRequeued?.(origin);
    }).pipe(ignoreElements());

  /** Where a 3xx leads, if it may be followed. */
  const nextHop = (target: NormalizedUrl, hops: number, outcome: Outcome): NormalizedUrl | undefined => {
    if (outcome.status === undefined || !REDIRECT_STATUSES.has(outcome.status) || !outcome.location) return undefined;
    const next = normalizeUrl(outcome.location, target.url);
    return 'key' in next && hops < MAX_ROBOTS_REDIRECTS ? next : undefined;
  };

  const settle = (target: NormalizedUrl, hops: number, outcome: Outcome): { next?: NormalizedUrl; sitemaps: string[] } => {
    const next = nextHop(target, hops, outcome);
    if (next) return { next, sitemaps: [] };
    // A 3xx that cannot be followed counts as no robots.txt (RFC 9309 §2.3.1.2).
    const isRedirect = outcome.status !== undefined && outcome.status >= 300 && outcome.status <= 399;
    const rules = learn(isRedirect ? { status: 404 } : outcome);
    return { sitemaps: deps.sitemaps ? rules.sitemaps : [] };
  };

  /** The stored response, when one from an earlier run can be used, or a claim to fetch it (undefined: being fetched as a page). */
  const lookUp = async (target: NormalizedUrl, hops: number) => {
    const stored = await deps.frontier.storedResponse(target.key);
    if (stored && stored.status < 500) return { stored };
    return { claim: await deps.frontier.claimOwn({ ...target, kind: 'robots', depth: 0, redirectHops: hops }) };
  };

  const hop = (target: NormalizedUrl, hops: number): Observable<FetchReport> =>
    defer(() => lookUp(target, hops)).pipe(mergeMap(({ stored, claim }) => fetchHop(target, hops, stored, claim)));

  const fetchHop = (target: NormalizedUrl, hops: number, stored: Outcome | undefined, claim: ClaimedUrl | undefined): Observable<FetchReport> =>
    defer(() => {
      if (stored) {
        const { next } = settle(target, hops, stored);
        return concat(requeueRefused(), next ? hop(next, hops + 1) : EMPTY);
      }
      if (!claim) {
        // Being fetched as a page right now: go on as if there were no robots.txt.
        learn({ status: 404 });
        return requeueRefused();
      }
      let next: NormalizedUrl | undefined;
      return of<CrawlItem>({ claim, attempts: 0, state: 'pending', discovered: [] }).pipe(
        deps.fetch,
        map((item): CrawlItem => {
          if (item.state === 'stopped') {
            deps.book.forget(origin);
            return item;
          }
          const { response } = item;
          const outcome: Outcome = response
            ? { status: response.status, body: response.body, location: response.location ?? null }
            : { error: item.error?.message ?? 'no answer' };
          const settled = settle(target, hops, outcome);
          next = settled.next;
          // Sitemap: lines are URLs a response adds like any other: the same cap, the same count of what was left.
          const budget = new LinkBudget(target.url, deps.maxUrls ?? 0);
          const discovered: DiscoveredUrl[] = [];
          for (const href of settled.sitemaps) {
            const sitemap = budget.admit(href);
            if (sitemap) discovered.push(discover(sitemap, 'sitemap', 'sitemap', 0));
          }
          if (next) discovered.push(discover(next, 'redirect', 'robots', 0, hops + 1, { linkOnly: true }));
          const page = budget.dropped > 0 ? { charset: item.page?.charset ?? null, ...item.page, linksDropped: budget.dropped } : item.page;
          return page ? { ...item, page, discovered } : { ...item, discovered };
        }),
        deps.commit,
        mergeMap((report) => concat(of(report), requeueRefused(), next ? hop(next, hops + 1) : EMPTY)),
      );
    });

  return hop(first, 0);
}
