import { map, type OperatorFunction } from 'rxjs';
import type { DiscoveredUrl } from '../../storage/ports.js';
import type { CrawlItem } from '../crawl-item.js';

/**
 * A fixed-size memory of URLs known to be in the archive, oldest forgotten
 * first. Only a hint that saves an insert: the archive's UNIQUE key decides.
 */
export class SeenCache {
  private readonly urls = new Set<string>();

  constructor(private readonly capacity: number) {}

  has(url: string): boolean {
    return this.urls.has(url);
  }

  add(url: string): void {
    if (this.urls.has(url)) return;
    if (this.urls.size >= this.capacity) this.urls.delete(this.urls.values().next().value!);
    this.urls.add(url);
  }

  get size(): number {
    return this.urls.size;
  }
}

/** Keeps each discovered URL once per page (a redirect or the first link wins) and marks those already known. */
export function seen(cache: SeenCache): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    const unique = new Map<string, DiscoveredUrl>();
    for (const found of item.discovered) {
      if (unique.has(found.url)) continue;
      const known = found.url === item.claim.url || cache.has(found.url);
      unique.set(found.url, known ? { ...found, known } : found);
    }
    return { ...item, discovered: [...unique.values()] };
  });
}
