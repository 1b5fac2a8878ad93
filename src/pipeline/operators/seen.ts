import { map, type OperatorFunction } from 'rxjs';
import type { DiscoveredUrl } from '../ports.js';
import type { CrawlItem } from '../crawl-item.js';

/**
 * A fixed-size memory of URL keys known to be queued or fetched, with the
 * depth they are known at. Two generations: when the young one is full it
 * becomes the old one and the previous old one is dropped whole, so nothing
 * is evicted key by key (deleting a Map's oldest entries one at a time gets
 * slower as the Map churns). Only a hint that saves an insert: the archive's
 * UNIQUE key decides.
 */
export class SeenCache {
  private young = new Map<string, number>();
  private old = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  private depthOf(key: string): number | undefined {
    return this.young.get(key) ?? this.old.get(key);
  }

  /** Known at this depth or closer to a root, so finding it again changes nothing. */
  covers(key: string, depth: number): boolean {
    const known = this.depthOf(key);
    return known !== undefined && known <= depth;
  }

  add(key: string, depth: number): void {
    const known = this.depthOf(key);
    if (known !== undefined && known <= depth) return;
    if (this.young.size >= Math.max(1, Math.floor(this.capacity / 2))) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, depth);
  }

  get size(): number {
    return this.young.size + this.old.size;
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
