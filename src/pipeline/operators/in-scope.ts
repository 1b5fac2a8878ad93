import { map, type OperatorFunction } from 'rxjs';
import type { CrawlItem } from '../crawl-item.js';
import { outOfScope, type ScopeRules } from '../scope.js';

/**
 * Marks discovered URLs outside the crawl as skipped, with the reason: links,
 * redirect targets and sitemap entries alike. Requisites may come from any
 * host when `requisitesAnyHost` is set.
 */
export function inScope(rules: ScopeRules): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => ({
    ...item,
    discovered: item.discovered.map((found) => {
      if (found.skip || found.linkOnly) return found;
      const skip = outOfScope(found.url, rules, found.target, found.origin);
      return skip ? { ...found, skip } : found;
    }),
  }));
}
