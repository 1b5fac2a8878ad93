import { map, type OperatorFunction } from 'rxjs';
import type { DiscoveredUrl } from '../../storage/ports.js';
import type { CrawlItem } from '../crawl-item.js';

/**
 * A fixed-size memory of URL keys known to be queued or fetched, with the
 * depth they are known at; oldest forgotten first. Only a hint that saves an
 * insert: the archive's UNIQUE key decides.
 */
export class SeenCache {
  private readonly depths = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  /** Known at this depth or closer to a root, so finding it again changes nothing. */
  covers(key: string, depth: number): boolean {
    const known = this.depths.get(key);
    return known !== undefined && known <= depth;
  }

  add(key: string, depth: number): void {
    const known = this.depths.get(key);
    if (known !== undefined) {
      if (depth < known) this.depths.set(key, depth);
      return;
    }
    if (this.depths.size >= this.capacity) this.depths.delete(this.depths.keys().next().value!);
    this.depths.set(key, depth);
  }

  get size(): number {
    return this.depths.size;
  }
}

/**
 * Keeps each discovered URL once per page (the first way it was found wins,
 * unless only a later way lets it be fetched) and marks those already known.
 */
export function seen(cache: SeenCache): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    const unique = new Map<string, DiscoveredUrl>();
    for (const found of item.discovered) {
      const first = unique.get(found.key);
      if (first && !(first.skip && !found.skip)) continue;
      const known = found.key === item.claim.key || cache.covers(found.key, found.depth);
      unique.set(found.key, known ? { ...found, known } : found);
    }
    return { ...item, discovered: [...unique.values()] };
  });
}
