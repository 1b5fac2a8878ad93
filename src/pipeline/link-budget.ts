import { documentOf, LinkResolver, withFragment, type NormalizedUrl } from '../url/index.js';

/**
 * Which fragments of a page's links name pages of their own (crawl --browser: hash routes); others
 * are cut off. `sameDocument`: the link points into the page's own document.
 */
export type KeepFragment = (fragment: string, sameDocument: boolean) => boolean;

/** Positive limits combine to the smallest; 0 or absent means no limit. */
export function smallestLimit(...limits: (number | undefined)[]): number {
  const set = limits.filter((limit): limit is number => limit !== undefined && limit > 0);
  return set.length ? Math.min(...set) : 0;
}

/**
 * The distinct URLs one response may add to the crawl: at most `limit` (0 for
 * no limit), the first ones in document order, read as the parser finds them.
 *
 * Memory stays bounded by the limit, whatever the response holds: a target is
 * remembered once by its normalised key, and each raw spelling (fragment cut
 * off) is resolved once, so 14,000 `#fragment` links to 500 pages cost 500
 * resolutions, most of them without the WHATWG parser (fast-resolve.ts). Once the limit is reached nothing new is resolved; every later
 * http(s) reference whose spelling was not already read is counted in
 * `dropped` instead ("link references not read": a target referenced twice
 * after the limit counts twice).
 */
export class LinkBudget {
  /** Link references not read because the limit was reached. */
  dropped = 0;
  /** Key -> bit set of the ways (variants) it was already handed out. */
  private readonly keys = new Map<string, number>();
  /** Raw spelling without fragment -> its normalised URL, or null when it is not an http(s) URL. */
  private readonly resolved = new Map<string, NormalizedUrl | null>();
  private readonly maxResolved: number;
  private readonly resolver: LinkResolver;

  private readonly document: string | undefined;

  constructor(
    base: string,
    private readonly limit: number,
    private readonly fragments?: { keep: KeepFragment; pageUrl: string },
  ) {
    this.resolver = new LinkResolver(base);
    this.document = fragments && documentOf(fragments.pageUrl);
    // Many spellings of one target (`./a`, `a`, `/dir/a`) each cost an entry; the cache stops growing past this.
    this.maxResolved = limit > 0 ? 4 * limit : Infinity;
  }

  /**
   * The URL `href` names, when it is an http(s) URL not yet read this way
   * (`variant`, 0 to 30: how it was found) and within the limit; undefined
   * otherwise. A new target past the limit is counted, not resolved.
   */
  admit(href: string, variant = 0): NormalizedUrl | undefined {
    const hash = href.indexOf('#');
    const raw = hash === -1 ? href : href.slice(0, hash);
    let target = this.resolved.get(raw);
    if (target === undefined) {
      if (otherScheme(raw)) return undefined;
      if (this.full()) {
        this.dropped++;
        return undefined;
      }
      const normalized = this.resolver.normalize(raw);
      target = 'key' in normalized ? normalized : null;
      if (this.resolved.size < this.maxResolved) this.resolved.set(raw, target);
    }
    if (target === null) return undefined;
    if (hash !== -1 && hash + 1 < href.length && this.fragments) {
      const fragment = href.slice(hash + 1);
      if (this.fragments.keep(fragment, target.url === this.document)) target = withFragment(target, fragment);
    }
    const bit = 1 << variant;
    const ways = this.keys.get(target.key);
    if (ways === undefined) {
      if (this.full()) {
        this.dropped++;
        return undefined;
      }
      this.keys.set(target.key, bit);
      return target;
    }
    if (ways & bit) return undefined;
    this.keys.set(target.key, ways | bit);
    return target;
  }

  /** Distinct URLs read so far. */
  get read(): number {
    return this.keys.size;
  }

  private full(): boolean {
    return this.limit > 0 && this.keys.size >= this.limit;
  }
}

/**
 * True when `raw` starts with a scheme other than http or https (`mailto:`,
 * `javascript:`, `data:`): never crawled, so neither resolved nor counted. A
 * cheap look at the first characters; anything unusual goes to the URL parser.
 */
function otherScheme(raw: string): boolean {
  const first = raw.charCodeAt(0) | 0x20;
  if (first < 0x61 || first > 0x7a) return false;
  for (let i = 1; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x3a) {
      const scheme = raw.slice(0, i).toLowerCase();
      return scheme !== 'http' && scheme !== 'https';
    }
    const lower = c | 0x20;
    const schemeChar = (lower >= 0x61 && lower <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
    if (!schemeChar) return false;
  }
  return false;
}
