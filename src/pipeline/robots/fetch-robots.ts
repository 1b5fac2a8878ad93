import { concat, defer, EMPTY, ignoreElements, map, mergeMap, of, type Observable, type OperatorFunction } from 'rxjs';
import type { DiscoveredUrl, FrontierPort, StoredSummary } from '../ports.js';
import type { CrawlItem, FetchReport } from '../crawl-item.js';
import { MAX_ROBOTS_REDIRECTS } from '../crawl-options.js';
import { discover } from '../discover.js';
import { LinkBudget } from '../link-budget.js';
import { followRedirects, redirectTarget } from '../operators/follow-redirects.js';
import { normalizeUrl, type NormalizedUrl } from '../../url/index.js';
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
 * RFC 9309 §2.3.1.2: five redirects, across hosts too. The chain is
 * followed here, within the origin's robots task, so the target is a link only.
 */
const redirects = followRedirects(MAX_ROBOTS_REDIRECTS, 'caller');

/** The hop a redirect leads to, from the discovered URL the redirects operator added. */
const nextHop = (item: CrawlItem): DiscoveredUrl | undefined => item.discovered.find((found) => found.kind === 'redirect');

const hopOf = ({ url, key, origin, pathKey }: DiscoveredUrl): NormalizedUrl =>
  pathKey === undefined ? { url, key, origin } : { url, key, origin, pathKey };

const isRedirect = (outcome: Outcome) => outcome.status !== undefined && outcome.status >= 300 && outcome.status <= 399;

/**
 * Fetches an origin's robots.txt before anything else there, following up
 * to five redirects, storing each response as a page of kind `robots`, and
 * records the rules. A robots.txt stored by an earlier run is read from the
 * archive instead of fetched again, unless it was a 5xx or never answered, or
 * a re-crawl queued it again: that one is asked for again (conditionally, and
 * a 304 confirms the stored rules).
 */
export function fetchRobots(origin: string, deps: RobotsFetchDeps): Observable<FetchReport> {
  const first = normalizeUrl('/robots.txt', origin) as NormalizedUrl;
  let backAfterOutage = false;

  /** Records the rules of the answer that ends the chain, and returns the sitemaps to read. */
  const learn = (outcome: Outcome): string[] => {
    // A 3xx that cannot be followed counts as no robots.txt (RFC 9309 §2.3.1.2).
    const rules = robotsRules(first.url, isRedirect(outcome) ? { status: 404 } : outcome, deps.userAgent);
    if (deps.book.set(origin, rules)) backAfterOutage = true;
    return deps.sitemaps ? rules.sitemaps : [];
  };

  // Back after an outage earlier in this run: what the outage refused gets its chance now.
  const requeueRefused = (): Observable<never> =>
    defer(async () => {
      if (!backAfterOutage) return;
      backAfterOutage = false;
      if ((await deps.frontier.requeueRobotsUnavailable(origin)) > 0) deps.onRequeued?.(origin);
    }).pipe(ignoreElements());

  /** A hop an earlier run stored: read, not fetched. */
  const read = (target: NormalizedUrl, hops: number, stored: Outcome & { status: number }): Observable<FetchReport> => {
    const hop = redirectTarget(stored, target.url, hops, MAX_ROBOTS_REDIRECTS);
    if (hop && 'next' in hop) return visit(hop.next, hops + 1);
    learn(stored);
    return requeueRefused();
  };

  /** A fetched hop: the rules when the chain ends here, with the Sitemap: lines as discovered URLs. */
  const settle = (target: NormalizedUrl, item: CrawlItem, stored: StoredSummary | undefined): CrawlItem => {
    if (item.state === 'stopped') {
      deps.book.forget(origin);
      return item;
    }
    if (nextHop(item)) return item;
    const { response } = item;
    const confirmed = response?.status === 304 && item.claim.validators ? stored : undefined;
    const sitemaps = learn(
      confirmed ??
        (response
          ? { status: response.status, body: response.body, location: response.location ?? null }
          : { error: item.error?.message ?? 'no answer' }),
    );
    // Sitemap: lines are URLs a response adds like any other: the same cap, the same count of what was left.
    const budget = new LinkBudget(target.url, deps.maxUrls ?? 0);
    const discovered = [...item.discovered];
    for (const href of sitemaps) {
      const sitemap = budget.admit(href);
      if (sitemap) discovered.push(discover(sitemap, 'sitemap', 'sitemap', 0));
    }
    const page = budget.dropped > 0 ? { charset: item.page?.charset ?? null, ...item.page, linksDropped: budget.dropped } : item.page;
    return page ? { ...item, page, discovered } : { ...item, discovered };
  };

  /** Fetches a hop as pages are fetched (retries, pacing, redirects), commits it, and goes on to the next. */
  const fetch = (target: NormalizedUrl, hops: number, stored: StoredSummary | undefined): Observable<FetchReport> =>
    defer(() => deps.frontier.claimOwn({ ...target, kind: 'robots', depth: 0, redirectHops: hops })).pipe(
      mergeMap((claim) => {
        if (!claim) {
          // Fetched meanwhile (another worker of a shared frontier, or as a page of this crawl): its answer is the rules.
          return defer(() => deps.frontier.storedResponse(target.key)).pipe(
            mergeMap((now) => {
              // A 5xx is read too: the rules are "unavailable" here as for the worker that got it.
              if (now) return read(target, hops, now);
              // A page of the crawl (a redirect to its home page, say): go on as if there were no robots.txt; it is crawled as a page.
              learn({ status: 404 });
              return requeueRefused();
            }),
          );
        }
        let next: DiscoveredUrl | undefined;
        return of<CrawlItem>({ claim, attempts: 0, state: 'pending', discovered: [] }).pipe(
          deps.fetch,
          redirects,
          map((item) => {
            next = nextHop(item);
            return settle(target, item, stored);
          }),
          deps.commit,
          // The refused URLs are queued again after robots.txt is committed, so they are never claimed before it.
          mergeMap((report) => concat(of(report), requeueRefused(), next ? visit(hopOf(next), hops + 1) : EMPTY)),
        );
      }),
    );

  const visit = (target: NormalizedUrl, hops: number): Observable<FetchReport> =>
    defer(() => deps.frontier.storedResponse(target.key)).pipe(
      mergeMap((stored) => (stored && !stored.due && stored.status < 500 ? read(target, hops, stored) : fetch(target, hops, stored))),
    );

  return visit(first, 0);
}
