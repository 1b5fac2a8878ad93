import { gunzipSync } from 'node:zlib';
import { map, type OperatorFunction } from 'rxjs';
import type { DiscoveredUrl } from '../../storage/ports.js';
import type { CrawlItem, PageFacts } from '../crawl-item.js';
import { discover } from '../discover.js';
import { extractCssUrls } from '../html/extract-css-urls.js';
import { extractPage, type FoundLink } from '../html/extract-page.js';
import { charsetOf, decodeText, isCss, isHtml } from '../html/decode-text.js';
import { decodeHtml } from '../html/sniff-charset.js';
import { normalizeUrl, type NormalizedUrl } from '../normalize-url.js';
import { extractSitemap, isGzip } from '../sitemap/extract-sitemap.js';

export interface ParseSettings {
  maxRedirects: number;
  maxBodyBytes: number;
  /** Links read from one HTML page at most; 0 for no limit. */
  maxLinksPerPage?: number;
}

function baseOf(base: string | undefined, pageUrl: string): string {
  if (base === undefined) return pageUrl;
  try {
    return new URL(base, pageUrl).href;
  } catch {
    return pageUrl;
  }
}

function resolveAll(hrefs: string[], base: string): NormalizedUrl[] {
  const resolved: NormalizedUrl[] = [];
  for (const href of hrefs) {
    const normalized = normalizeUrl(href, base);
    if ('key' in normalized) resolved.push(normalized);
  }
  return resolved;
}

/** What each kind of HTML link becomes: a page one level deeper, a requisite, a refresh (like a redirect), a canonical (recorded only). */
function fromHtmlLink(link: FoundLink, target: NormalizedUrl, item: CrawlItem, nofollowAll: boolean, settings: ParseSettings): DiscoveredUrl {
  const { depth, redirectHops } = item.claim;
  switch (link.kind) {
    case 'requisite':
      return discover(target, 'requisite', 'requisite', depth + 1);
    case 'refresh':
      // Followed like a redirect: same depth, one hop further, within the same budget.
      return redirectHops < settings.maxRedirects
        ? discover(target, 'refresh', 'page', depth, redirectHops + 1, { nofollow: nofollowAll })
        : discover(target, 'refresh', 'page', depth, redirectHops + 1, { linkOnly: true });
    case 'canonical':
      return discover(target, 'canonical', 'page', depth + 1, 0, { linkOnly: true });
    default:
      return discover(target, 'link', 'page', depth + 1, 0, { nofollow: nofollowAll || link.nofollow });
  }
}

function parseHtml(item: CrawlItem, body: Uint8Array, contentType: string | null, settings: ParseSettings): CrawlItem {
  const { text, encoding } = decodeHtml(body, contentType);
  const facts = extractPage(text);
  const base = baseOf(facts.base, item.claim.url);
  const discovered: DiscoveredUrl[] = [];
  // A page with a huge number of links is a trap or an attack; committing them all would stall the crawl.
  const links = settings.maxLinksPerPage ? facts.links.slice(0, settings.maxLinksPerPage) : facts.links;
  for (const link of links) {
    const target = normalizeUrl(link.href, base);
    if ('key' in target) discovered.push(fromHtmlLink(link, target, item, facts.robots.nofollow, settings));
  }
  const page: PageFacts = { charset: encoding };
  if (facts.title !== undefined) page.title = facts.title;
  if (facts.canonical !== undefined) {
    const canonical = normalizeUrl(facts.canonical, base);
    if ('key' in canonical) page.canonical = canonical.url;
  }
  const robots = (['noindex', 'nofollow', 'noarchive'] as const).filter((directive) => facts.robots[directive]);
  if (robots.length) page.robots = robots;
  return { ...item, page, discovered: [...item.discovered, ...discovered] };
}

function parseCss(item: CrawlItem, body: Uint8Array, contentType: string | null): CrawlItem {
  const charset = charsetOf(contentType);
  const urls = resolveAll(extractCssUrls(decodeText(body, charset)), item.claim.url);
  const requisites = urls.map((url) => discover(url, 'requisite', 'requisite', item.claim.depth + 1));
  return { ...item, page: { charset }, discovered: [...item.discovered, ...requisites] };
}

function parseSitemap(item: CrawlItem, body: Uint8Array, settings: ParseSettings): CrawlItem {
  let xml: Uint8Array = body;
  if (isGzip(body)) {
    try {
      xml = gunzipSync(body, { maxOutputLength: settings.maxBodyBytes });
    } catch (error) {
      return { ...item, state: 'failed', error: { code: 'bad_sitemap', message: `gzipped sitemap cannot be read: ${(error as Error).message}` } };
    }
  }
  const { pages, sitemaps } = extractSitemap(new TextDecoder('utf-8').decode(xml));
  // Sitemaps seed the crawl like roots: their pages start at depth 0.
  const found = [
    ...resolveAll(pages, item.claim.url).map((url) => discover(url, 'sitemap', 'page', 0)),
    ...resolveAll(sitemaps, item.claim.url).map((url) => discover(url, 'sitemap', 'sitemap', 0)),
  ];
  return { ...item, page: { charset: 'utf-8' }, discovered: [...item.discovered, ...found] };
}

/**
 * Reads what a successful response links to: an HTML page's links,
 * requisites, refresh and canonical (HTML decoded with its sniffed charset),
 * a stylesheet's url()s, a sitemap's entries. Other content is stored as is.
 */
export function parsePage(settings: ParseSettings): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    const { response, claim } = item;
    if (!response || item.state !== 'done' || response.status < 200 || response.status > 299) return item;
    const contentType = response.headers['content-type'] ?? null;
    if (claim.kind === 'sitemap') return parseSitemap(item, response.body, settings);
    if (isCss(contentType)) return parseCss(item, response.body, contentType);
    if (claim.kind === 'page' && isHtml(contentType)) return parseHtml(item, response.body, contentType, settings);
    return { ...item, page: { charset: charsetOf(contentType) } };
  });
}
