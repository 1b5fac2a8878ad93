import { map, type OperatorFunction } from 'rxjs';
import type { DiscoveredUrl } from '../ports.js';
import type { CrawlItem } from '../crawl-item.js';
import { outOfScope, type ScopeRules } from '../scope.js';

/**
 * Marks discovered URLs outside the crawl as skipped, with the reason: links,
 * redirect targets and sitemap entries alike. Requisites may come from any
 * host when `requisitesAnyHost` is set.
 */
export function inScope(rules: ScopeRules): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    // Most pages link only inside the crawl: the item is copied only when a URL is marked.
    let marked: DiscoveredUrl[] | undefined;
    item.discovered.forEach((found, i) => {
      if (found.skip || found.linkOnly) return;
      const skip = outOfScope(found.url, rules, found.target, found.origin);
      if (skip) (marked ??= item.discovered.slice())[i] = { ...found, skip };
    });
    return marked ? { ...item, discovered: marked } : item;
  });
}
