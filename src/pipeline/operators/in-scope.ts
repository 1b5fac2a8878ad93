import { map, type OperatorFunction } from 'rxjs';
import type { CrawlItem } from '../crawl-item.js';
import { outOfScope, type ScopeRules } from '../scope.js';

/** Marks discovered URLs outside the crawl as skipped, with the reason; links and redirect targets alike. */
export function inScope(rules: ScopeRules): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => ({
    ...item,
    discovered: item.discovered.map((found) => {
      if (found.skip) return found;
      const skip = outOfScope(found.url, rules);
      return skip ? { ...found, skip } : found;
    }),
  }));
}
