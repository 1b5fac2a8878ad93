import { gunzipSync } from 'node:zlib';
import type { ClaimedUrl, DiscoveredUrl, PageText, Reason } from '../ports.js';
import type { PageFacts } from '../crawl-item.js';
import { discover } from '../discover.js';
import {
  extractCssUrls,
  extractPage,
  findBase,
  mentionsBase,
  type FoundKind,
  charsetOf,
  decodeText,
  isCss,
  isHtml,
  decodeHtmlPieces,
  baseOf,
} from '../../html/index.js';
import { LinkBudget, smallestLimit } from '../link-budget.js';
import { isRouteFragment, normalizeUrl, type NormalizedUrl } from '../../url/index.js';
import { extractSitemap, isGzip } from '../sitemap/extract-sitemap.js';

export { TEXT_EXTRACTION_VERSION } from '../../html/index.js';

export interface ParseSettings {
  maxRedirects: number;
  maxBodyBytes: number;
  /** Distinct URLs read from one response (page, stylesheet, sitemap) at most; 0 or absent for no limit. */
  maxLinksPerPage?: number;
  /** The crawl's --max-pages: a sitemap's entries past it could never be fetched, so they are not read. */
  maxPages?: number;
  /** Keep each HTML page's text for full-text search (--no-text: false); on unless false. */
  text?: boolean;
  /** Compress each body for storage on the parse thread (--compact); the archive's writer stores what it is given. */
  compact?: boolean;
}

/** What one response is to be read as: only these are parsed; other content is stored as is. */
export interface ParseJob {
  claim: ClaimedUrl;
  contentType: string | null;
  body: Uint8Array;
  /** The page's DOM once a browser ran its scripts (crawl --browser): its links are read too, and its text is the page's. */
  rendered?: string;
  /** The rendered page shows other content at other fragments of its URL (a hash router that is not `#/`): its in-page links are pages too. */
  fragmentRoutes?: boolean;
}

/** What a response says: its facts and what it links to, or why it cannot be read. */
export interface ParseResult {
  page?: PageFacts;
  found: DiscoveredUrl[];
  error?: Reason;
}

/** Each way an HTML link is found is kept once per target: kinds times nofollow. */
const HTML_VARIANT: Record<FoundKind, number> = { link: 0, requisite: 2, refresh: 4, canonical: 6 };

/** What each kind of HTML link becomes: a page one level deeper, a requisite, a refresh (like a redirect), a canonical (recorded only). */
function fromHtmlLink(
  kind: FoundKind,
  nofollow: boolean,
  target: NormalizedUrl,
  claim: ClaimedUrl,
  settings: ParseSettings,
): DiscoveredUrl {
  const { depth, redirectHops } = claim;
  switch (kind) {
    case 'requisite':
      return discover(target, 'requisite', 'requisite', depth + 1);
    case 'refresh':
      // Followed like a redirect: same depth, one hop further, within the same budget.
      return redirectHops < settings.maxRedirects
        ? discover(target, 'refresh', 'page', depth, redirectHops + 1, { nofollow })
        : discover(target, 'refresh', 'page', depth, redirectHops + 1, { linkOnly: true });
    case 'canonical':
      return discover(target, 'canonical', 'page', depth + 1, 0, { linkOnly: true });
    default:
      return discover(target, 'link', 'page', depth + 1, 0, { nofollow });
  }
}

/** The facts and what was found, with how many link references the cap left unread. */
function withFound(page: PageFacts, found: DiscoveredUrl[], budget: LinkBudget): ParseResult {
  if (budget.dropped > 0) page.linksDropped = budget.dropped;
  return { page, found };
}

/** The page's `<base>`, read in a first pass only when its bytes mention one. */
function baseOfPage(body: Uint8Array, html: ReturnType<typeof decodeHtmlPieces>, pageUrl: string): string {
  return baseOf(mentionsBase(body, html.encoding) ? findBase(html.pieces()) : undefined, pageUrl);
}

/**
 * In a rendered page (crawl --browser) a link to a hash route (`#/a`, `#!a`) is a page of its own, and so is
 * any in-page link of a page whose script shows other content at other fragments; other fragments are cut off.
 */
function routeFragments(claim: ClaimedUrl, fragmentRoutes: boolean | undefined) {
  // A fragment starting with '/' or '!' is a route or the app's home whatever the page does.
  const inPage = (fragment: string, sameDocument: boolean) => sameDocument && fragmentRoutes === true && !/^[!/]/.test(fragment);
  return {
    pageUrl: claim.url,
    keep: (fragment: string, sameDocument: boolean) => isRouteFragment(fragment) || inPage(fragment, sameDocument),
  };
}

function parseHtml({ claim, body, contentType, rendered, fragmentRoutes }: ParseJob, settings: ParseSettings): ParseResult {
  // Decoded a piece at a time: a page is never one string, so its size does not multiply in memory.
  const html = decodeHtmlPieces(body, contentType);
  const { encoding } = html;
  const base = baseOfPage(body, html, claim.url);
  // A page with a huge number of links is a trap or an attack; committing them all would stall the crawl.
  const budget = new LinkBudget(
    base,
    settings.maxLinksPerPage ?? 0,
    rendered === undefined ? undefined : routeFragments(claim, fragmentRoutes),
  );
  const found: DiscoveredUrl[] = [];
  const links: { kind: FoundKind; nofollow: boolean; target: NormalizedUrl }[] = [];
  const onLink = (href: string, kind: FoundKind, nofollow: boolean) => {
    const target = budget.admit(href, HTML_VARIANT[kind] + (nofollow ? 1 : 0));
    if (target) links.push({ kind, nofollow, target });
  };
  // With a rendered DOM, the text is what a reader saw; the bytes as served are still read for their links.
  const facts = extractPage(html.pieces(), onLink, { text: settings.text !== false && rendered === undefined });
  if (rendered !== undefined) {
    const dom = renderedFacts(rendered, base, onLink, settings);
    if (dom.title !== undefined) facts.title = dom.title;
    if (dom.text !== undefined) facts.text = dom.text;
    for (const directive of ['noindex', 'nofollow', 'noarchive'] as const) facts.robots[directive] ||= dom.robots[directive];
  }
  // <meta name="robots" content="nofollow"> may come after the links it covers, so they are built at the end.
  for (const { kind, nofollow, target } of links)
    found.push(fromHtmlLink(kind, facts.robots.nofollow || nofollow, target, claim, settings));
  const page: PageFacts = { charset: encoding };
  if (facts.title !== undefined) page.title = facts.title;
  if (facts.text !== undefined) page.text = facts.text;
  if (facts.canonical !== undefined) {
    const canonical = normalizeUrl(facts.canonical, base);
    if ('key' in canonical) page.canonical = canonical.url;
  }
  const robots = (['noindex', 'nofollow', 'noarchive'] as const).filter((directive) => facts.robots[directive]);
  if (robots.length) page.robots = robots;
  return withFound(page, found, budget);
}

/** What the rendered DOM says; its links go to `onLink`, resolved against the DOM's own <base> where a script set one. */
function renderedFacts(
  rendered: string,
  base: string,
  onLink: (href: string, kind: FoundKind, nofollow: boolean) => void,
  settings: ParseSettings,
) {
  const bytes = new TextEncoder().encode(rendered);
  // The browser serialises the DOM as text: it is UTF-8 here whatever the page's own charset was.
  const dom = decodeHtmlPieces(bytes, 'text/html; charset=utf-8');
  const domBase = mentionsBase(bytes, dom.encoding) ? baseOf(findBase(dom.pieces()), base) : base;
  const relative = (href: string) => (domBase === base ? href : resolveAgainst(href, domBase));
  return extractPage(dom.pieces(), (href, kind, nofollow) => onLink(relative(href), kind, nofollow), { text: settings.text !== false });
}

/** An href resolved against a base other than the page's, so the budget (which resolves against the page's) reads it right. */
function resolveAgainst(href: string, base: string): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

function parseCss({ claim, body, contentType }: ParseJob, settings: ParseSettings): ParseResult {
  const charset = charsetOf(contentType);
  const budget = new LinkBudget(claim.url, settings.maxLinksPerPage ?? 0);
  const found: DiscoveredUrl[] = [];
  extractCssUrls(decodeText(body, charset), (href) => {
    const target = budget.admit(href);
    if (target) found.push(discover(target, 'requisite', 'requisite', claim.depth + 1));
  });
  return withFound({ charset }, found, budget);
}

function parseSitemap({ claim, body }: ParseJob, settings: ParseSettings): ParseResult {
  let xml: Uint8Array = body;
  if (isGzip(body)) {
    try {
      xml = gunzipSync(body, { maxOutputLength: settings.maxBodyBytes });
    } catch (error) {
      return { found: [], error: { code: 'bad_sitemap', message: `gzipped sitemap cannot be read: ${(error as Error).message}` } };
    }
  }
  // With --max-pages N, no more than N of one sitemap's entries could ever be fetched.
  const budget = new LinkBudget(claim.url, smallestLimit(settings.maxLinksPerPage, settings.maxPages));
  const found: DiscoveredUrl[] = [];
  extractSitemap(new TextDecoder('utf-8').decode(xml), (entry, loc) => {
    const target = budget.admit(loc, entry === 'page' ? 0 : 1);
    // Sitemaps seed the crawl like roots: their pages start at depth 0.
    if (target) found.push(discover(target, 'sitemap', entry, 0));
  });
  return withFound({ charset: 'utf-8' }, found, budget);
}

/**
 * An HTML body's text as a crawl extracts it (decoded as the crawl decodes it), for indexing
 * responses stored without it: an archive of an older crawlite, or a crawl run with --no-text.
 */
export function extractPageText(body: Uint8Array, contentType: string | null): { title: string | null; text: PageText } {
  const facts = extractPage(decodeHtmlPieces(body, contentType).pieces(), () => {}, { text: true });
  return { title: facts.title ?? null, text: facts.text! };
}

/** Whether a response is read at all: a sitemap, a stylesheet, an HTML page. */
export function needsParse(claim: ClaimedUrl, contentType: string | null): boolean {
  return claim.kind === 'sitemap' || isCss(contentType) || (claim.kind === 'page' && isHtml(contentType));
}

/**
 * Reads what a response links to: an HTML page's links, requisites, refresh
 * and canonical (HTML decoded with its sniffed charset), a stylesheet's
 * url()s, a sitemap's entries. Pure, so it runs on any thread.
 */
export function parseResponse(job: ParseJob, settings: ParseSettings): ParseResult {
  if (job.claim.kind === 'sitemap') return parseSitemap(job, settings);
  if (isCss(job.contentType)) return parseCss(job, settings);
  if (job.claim.kind === 'page' && isHtml(job.contentType)) return parseHtml(job, settings);
  return { page: { charset: charsetOf(job.contentType) }, found: [] };
}
