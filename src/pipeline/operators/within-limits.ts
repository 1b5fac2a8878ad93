import { map, type OperatorFunction } from 'rxjs';
import type { DiscoveredUrl, Reason } from '../ports.js';
import type { CrawlItem } from '../crawl-item.js';
import { trapReason, type TrapSettings } from '../trap-guards.js';

export interface Limits {
  traps: TrapSettings;
  maxDepth?: number;
  /** rel=nofollow and meta robots nofollow are obeyed (with robots.txt). */
  obeyNofollow: boolean;
  requisites: boolean;
}

function refusal(found: DiscoveredUrl, limits: Limits): Reason | undefined {
  const trap = trapReason(found.url, limits.traps);
  if (trap) return trap;
  if (found.target === 'requisite' && !limits.requisites)
    return { code: 'no_requisites', message: 'page requisites are off (--no-requisites)' };
  if (found.nofollow && limits.obeyNofollow) return { code: 'nofollow', message: 'linked with nofollow' };
  // Requisites go with their page whatever its depth; only pages count depth.
  if (found.target === 'page' && limits.maxDepth !== undefined && found.depth > limits.maxDepth) {
    return { code: 'max_depth', message: `depth ${found.depth} is beyond --max-depth ${limits.maxDepth}` };
  }
  return undefined;
}

/**
 * Marks discovered URLs that the crawl's limits and trap guards leave out as
 * skipped. A URL skipped for its depth or a nofollow is queued after all if
 * it is found again by a way the limits allow (closer to a root, or without
 * nofollow).
 */
export function withinLimits(limits: Limits): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    // The item is copied only when a URL is marked.
    let marked: DiscoveredUrl[] | undefined;
    item.discovered.forEach((found, i) => {
      if (found.skip || found.linkOnly) return;
      const skip = refusal(found, limits);
      if (skip) (marked ??= item.discovered.slice())[i] = { ...found, skip };
    });
    return marked ? { ...item, discovered: marked } : item;
  });
}
