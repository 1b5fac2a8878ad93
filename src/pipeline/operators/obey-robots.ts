import { map, type OperatorFunction } from 'rxjs';
import type { CrawlItem } from '../crawl-item.js';
import type { RobotsBook } from '../robots/robots-book.js';

/** A URL that robots.txt disallows is skipped with the reason and never requested. */
export function obeyRobots(book: RobotsBook): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    if (item.state !== 'pending' || item.claim.kind === 'robots') return item;
    const refused = book.rules(item.claim.origin)?.refuses(item.claim.url);
    return refused ? { ...item, state: 'skipped', error: refused } : item;
  });
}
