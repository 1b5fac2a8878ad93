import { lastValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import { SeenCache, seen } from '../../src/pipeline/operators/seen.js';

const item = (urls: string[], kind: 'link' | 'redirect' = 'link'): CrawlItem => ({
  claim: { id: 1, url: 'http://a/', depth: 0, redirectHops: 0, tries: 0 },
  attempts: 1,
  state: 'done',
  discovered: urls.map((url) => ({ url, kind, depth: 1, redirectHops: 0 })),
});

describe('seen', () => {
  it('keeps each URL once per page, the first spelling winning', async () => {
    const out = await lastValueFrom(of(item(['http://a/x', 'http://a/y', 'http://a/x'])).pipe(seen(new SeenCache(10))));
    expect(out.discovered.map((found) => found.url)).toEqual(['http://a/x', 'http://a/y']);
  });

  it('marks URLs the cache knows, and the page itself, as known', async () => {
    const cache = new SeenCache(10);
    cache.add('http://a/x');
    const out = await lastValueFrom(of(item(['http://a/x', 'http://a/', 'http://a/new'])).pipe(seen(cache)));
    expect(out.discovered.map((found) => [found.url, found.known ?? false])).toEqual([
      ['http://a/x', true],
      ['http://a/', true],
      ['http://a/new', false],
    ]);
  });
});

describe('SeenCache', () => {
  it('has a fixed size, forgetting the oldest first', () => {
    const cache = new SeenCache(3);
    for (const url of ['1', '2', '3', '4']) cache.add(url);
    expect(cache.size).toBe(3);
    expect(['1', '2', '3', '4'].map((url) => cache.has(url))).toEqual([false, true, true, true]);
  });
});
