import { map, type OperatorFunction } from 'rxjs';
import type { Reason } from '../ports.js';
import type { CrawlItem } from '../crawl-item.js';
import { discover } from '../discover.js';
import { normalizeUrl, withFragment, type NormalizedUrl } from '../../url/index.js';

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Where a response leads: the next hop, why it cannot be followed, or
 * nothing when it is no redirect (a 3xx without Location included).
 * `hops` is how many redirects led to `from`.
 */
export function redirectTarget(
  response: { status: number; location?: string | null },
  from: string,
  hops: number,
  maxRedirects: number,
): { next: NormalizedUrl } | { error: Reason } | undefined {
  if (!REDIRECT_STATUSES.has(response.status)) return undefined;
  const location = response.location?.trim();
  if (!location) return undefined;
  const target = normalizeUrl(location, from);
  if ('error' in target) {
    const shown = JSON.stringify(location.length > 200 ? `${location.slice(0, 200)}...` : location);
    return { error: { code: 'bad_redirect', message: `HTTP ${response.status} to ${shown}, not an http(s) URL` } };
  }
  if (hops >= maxRedirects) {
    return {
      error: { code: 'too_many_redirects', message: `redirect to ${target.url} after ${hops} redirects (--max-redirects ${maxRedirects})` },
    };
  }
  // A Location without a fragment keeps the one asked for (RFC 9110 §10.2.2): a hash route
  // (crawl --browser) redirected to its document's new address is still that route.
  const hash = from.indexOf('#');
  if (hash !== -1 && !location.includes('#')) return { next: withFragment(target, from.slice(hash + 1)) };
  return { next: target };
}

/**
 * Who follows a redirect chain. `frontier`: the target is queued like a
 * link and goes through scope and seen, so a target reached by two paths is
 * fetched once; a redirect that cannot be followed fails the URL. `caller`:
 * the target is recorded as a link only, for the caller to fetch itself (an
 * origin's robots.txt is followed within its own task); a redirect that
 * cannot be followed ends the chain on that response, for the caller to judge.
 */
export type ChainFollower = 'frontier' | 'caller';

/**
 * Turns a redirect into a discovered URL one hop further along, within
 * `maxRedirects` hops of the first URL. A 3xx without Location is a page
 * with no follow-up.
 */
export function followRedirects(maxRedirects: number, followedBy: ChainFollower = 'frontier'): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    const { response, claim } = item;
    if (!response || item.state !== 'done') return item;
    const hop = redirectTarget(response, claim.url, claim.redirectHops, maxRedirects);
    if (!hop) return item;
    if ('error' in hop) return followedBy === 'caller' ? item : { ...item, state: 'failed', error: hop.error };
    // The target is fetched as what the source was: a page, a requisite, a sitemap, robots.txt.
    const next = discover(hop.next, 'redirect', claim.kind, claim.depth, claim.redirectHops + 1, { linkOnly: followedBy === 'caller' });
    return { ...item, discovered: [...item.discovered, next] };
  });
}
