import { map, type OperatorFunction } from 'rxjs';
import type { CrawlItem } from '../crawl-item.js';
import { discover } from '../discover.js';
import { normalizeUrl } from '../normalize-url.js';

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Turns a redirect into a discovered URL one hop further along. The target
 * then goes through scope and seen like any link, so a target reached by two
 * paths is fetched once. A 3xx without Location is a page with no follow-up.
 */
export function followRedirects(maxRedirects: number): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    const { response, claim } = item;
    if (!response || item.state !== 'done' || !REDIRECT_STATUSES.has(response.status)) return item;
    const location = response.location?.trim();
    if (!location) return item;
    const target = normalizeUrl(location, claim.url);
    if ('error' in target) {
      const shown = JSON.stringify(location.length > 200 ? `${location.slice(0, 200)}...` : location);
      return { ...item, state: 'failed', error: { code: 'bad_redirect', message: `HTTP ${response.status} to ${shown}, not an http(s) URL` } };
    }
    if (claim.redirectHops >= maxRedirects) {
      return {
        ...item,
        state: 'failed',
        error: { code: 'too_many_redirects', message: `redirect to ${target.url} after ${claim.redirectHops} redirects (--max-redirects ${maxRedirects})` },
      };
    }
    // The target is fetched as what the source was: a page, a requisite, a sitemap.
    const next = discover(target, 'redirect', claim.kind, claim.depth, claim.redirectHops + 1);
    return { ...item, discovered: [...item.discovered, next] };
  });
}
