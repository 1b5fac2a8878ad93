import { map, type OperatorFunction } from 'rxjs';
import type { CrawlItem } from '../crawl-item.js';
import type { CrawlControls } from '../crawl-controls.js';
import { liveExclusionReason } from '../scope.js';

/**
 * A URL claimed before an exclusion was added, and matching it, is skipped with the exclusion's reason
 * and never requested: claims taken ahead are checked again as their request would start.
 */
export function obeyLiveExclusions(controls: CrawlControls): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    if (item.state !== 'pending' || item.claim.kind === 'robots' || controls.liveExclude.length === 0) return item;
    const live = controls.excluding(item.claim.url);
    return live ? { ...item, state: 'skipped', error: liveExclusionReason(live.pattern) } : item;
  });
}
