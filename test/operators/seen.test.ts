import { lastValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import { SeenCache, seen } from '../../src/pipeline/operators/seen.js';
import type { DiscoveredUrl } from '../../src/pipeline/ports.js';
import { discovered, fetchedPage } from '../support/crawl-items.js';

const found = discovered;
const item = (links: DiscoveredUrl[]): CrawlItem => fetchedPage('http://a/', links);

const run = (discovered: DiscoveredUrl[], cache = new SeenCache(10)) => lastValueFrom(of(item(discovered)).pipe(seen(cache)));

describe('seen', () => {
  it('keeps each URL key once per page, the first way it was found winning', async () => {
    const out = await run([found('http://a/x'), found('http://a/y'), found('http://a/x', { kind: 'requisite' })]);
    expect(out.discovered.map((d) => [d.url, d.kind])).toEqual([
      ['http://a/x', 'link'],
      ['http://a/y', 'link'],
    ]);
  });

  it('prefers a later way that lets the URL be fetched over a first one that skips it', async () => {
    const out = await run([found('http://a/x', { nofollow: true, skip: { code: 'nofollow', message: '' } }), found('http://a/x')]);
    expect(out.discovered).toEqual([found('http://a/x')]);
  });

  it('deduplicates on the key, not the spelling', async () => {
    const out = await run([found('http://a/%e6', { key: 'http://a/%E6' }), found('http://a/%E6')]);
    expect(out.discovered).toHaveLength(1);
  });

  it('marks URLs the cache knows at this depth or closer, and the page itself, as known', async () => {
    const cache = new SeenCache(10);
    cache.add('http://a/x', 1);
    cache.add('http://a/deep', 5);
    const out = await run([found('http://a/x'), found('http://a/'), found('http://a/new'), found('http://a/deep')], cache);
    expect(out.discovered.map((d) => [d.url, d.known ?? false])).toEqual([
      ['http://a/x', true],
      ['http://a/', true],
      ['http://a/new', false],
      // Found closer to a root than the cache knows: the archive must hear of the shorter depth.
      ['http://a/deep', false],
    ]);
  });
});

describe('SeenCache', () => {
  it('never holds more than its capacity, forgetting the oldest first', () => {
    const cache = new SeenCache(4);
    for (const url of ['1', '2', '3', '4', '5']) cache.add(url, 0);
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(['1', '2', '3', '4', '5'].map((url) => cache.covers(url, 0))).toEqual([false, false, true, true, true]);
    for (let i = 0; i < 10_000; i += 1) cache.add(`x${i}`, 0);
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(cache.covers('x9999', 0)).toBe(true);
  });

  it('keeps the smallest depth a URL was added at', () => {
    const cache = new SeenCache(3);
    cache.add('x', 4);
    cache.add('x', 2);
    cache.add('x', 3);
    expect([cache.covers('x', 1), cache.covers('x', 2)]).toEqual([false, true]);
  });
});
