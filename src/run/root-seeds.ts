import { normalizeUrl, type NormalizedUrl } from '../url/index.js';
import type { Root } from '../storage/crawl-state/index.js';
import { resolveRoots } from './resolve-roots.js';

/** The stored roots, then the given ones not among them: each root resolved once (with its fragment, in a browser crawl). */
export function mergeRoots(stored: string[], given: NormalizedUrl[], fragments = false): NormalizedUrl[] {
  const seeds = resolveRoots(stored, { fragments });
  const known = new Set(seeds.map((seed) => seed.url));
  for (const root of given) {
    if (known.has(root.url)) continue;
    known.add(root.url);
    seeds.push(root);
  }
  return seeds;
}

/** `/sitemap.xml` of each root's origin, once per origin. */
export function sitemapSeeds(seeds: NormalizedUrl[]): Root[] {
  const origins = [...new Set(seeds.map((seed) => seed.origin))];
  return origins.map((origin) => ({ ...(normalizeUrl(`${origin}/sitemap.xml`) as NormalizedUrl), kind: 'sitemap' as const }));
}
