import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import type { ClaimedUrl, DiscoveredUrl } from '../../src/pipeline/ports.js';

/** A page link found at depth 1, with whatever `extra` changes. */
export const discovered = (url: string, extra: Partial<DiscoveredUrl> = {}): DiscoveredUrl => ({
  url,
  key: url,
  origin: new URL(url).origin,
  kind: 'link',
  target: 'page',
  depth: 1,
  redirectHops: 0,
  ...extra,
});

/** A root page as claimed from the frontier, its lease never running out. */
export const claimedPage = (pageUrl: string): ClaimedUrl => ({
  id: 1,
  url: pageUrl,
  key: pageUrl,
  origin: new URL(pageUrl).origin,
  kind: 'page',
  depth: 0,
  redirectHops: 0,
  tries: 0,
  lease: { token: 'test', expiresAt: Infinity },
});

/** A root page, fetched, carrying what it discovered. */
export const fetchedPage = (pageUrl: string, found: DiscoveredUrl[]): CrawlItem => ({
  claim: claimedPage(pageUrl),
  attempts: 1,
  state: 'done',
  discovered: found,
});
