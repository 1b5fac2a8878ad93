import { map, type OperatorFunction } from 'rxjs';
import type { DiscoveredUrl } from '../../storage/ports.js';
import type { CrawlItem } from '../crawl-item.js';
import { charsetOf, decodeText, isHtml } from '../html/decode-text.js';
import { extractLinks } from '../html/extract-links.js';
import { normalizeUrl } from '../normalize-url.js';

function baseOf(base: string | undefined, pageUrl: string): string {
  if (base === undefined) return pageUrl;
  try {
    return new URL(base, pageUrl).href;
  } catch {
    return pageUrl;
  }
}

/** Adds the http(s) links of a successful HTML page; other content is stored, not parsed. */
export function parseLinks(): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    const { response, claim } = item;
    if (!response || item.state !== 'done' || response.status < 200 || response.status > 299) return item;
    const contentType = response.headers['content-type'] ?? null;
    if (!isHtml(contentType)) return item;
    const { base, hrefs } = extractLinks(decodeText(response.body, charsetOf(contentType)));
    const resolveAgainst = baseOf(base, claim.url);
    const links: DiscoveredUrl[] = [];
    for (const href of hrefs) {
      const normalized = normalizeUrl(href, resolveAgainst);
      if ('url' in normalized) links.push({ url: normalized.url, kind: 'link', depth: claim.depth + 1, redirectHops: 0 });
    }
    return { ...item, discovered: [...item.discovered, ...links] };
  });
}
