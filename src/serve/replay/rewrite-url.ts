import { findRefreshUrl, parseSrcset, trimUrl } from '../../html/index.js';
import type { ReplayAddresses } from '../replay-addresses.js';
import { replayPath, type ReplayModifier } from '../replay-url.js';

/** Turns a URL as a page writes it into the URL that replays it; anything else comes back unchanged. */
export type RewriteUrl = (raw: string) => string;

/** Schemes that name no archived resource: left as written (javascript:, data:, blob:, mailto:, tel:, about:...). */
const REPLAYED_SCHEMES = new Set(['http:', 'https:']);

/** Where a rewritten URL points: what replay-addresses.ts says, at the capture's timestamp. */
export interface RewriteTarget {
  /** The URL that replays an absolute http(s) URL. */
  address(href: string): string;
  /** Whether a URL already points at replay (a page saved from a replay, or rewritten twice). */
  isReplay(url: URL): boolean;
  /**
   * With per-origin replay hosts the page is served at its own path, so a URL the browser would
   * resolve to the right replay URL by itself (a relative or root-relative one) is left as written.
   */
  leaveResolving: boolean;
}

/**
 * Rewrites URLs found in a capture: each is resolved against the capture's URL (or its `<base>`)
 * and pointed at replay with the capture's timestamp, which replay then takes as "the capture
 * nearest this time". A bare `#fragment` stays in the page; a URL that does not parse is left as
 * written, as the browser would fail on it too.
 */
export function urlRewriter(base: string, target: RewriteTarget): RewriteUrl {
  let replayedBase: string | undefined;
  if (target.leaveResolving) {
    try {
      replayedBase = target.address(new URL(base).href);
    } catch {
      replayedBase = undefined;
    }
  }
  return (raw) => {
    const href = trimUrl(raw);
    if (href === '' || href.startsWith('#')) return raw;
    let resolved: URL;
    try {
      resolved = new URL(href, base);
    } catch {
      return raw;
    }
    if (!REPLAYED_SCHEMES.has(resolved.protocol)) return raw;
    if (target.isReplay(resolved)) return raw;
    const replayed = target.address(resolved.href);
    // Compared, not guessed from the spelling: browsers read `\\host`, `/\t/host` as `//host`.
    if (replayedBase !== undefined && URL.canParse(href, replayedBase) && new URL(href, replayedBase).href === replayed) return raw;
    return replayed;
  };
}

/**
 * Rewriting onto the archived sites' own replay hosts at the timestamp of the host a page is served
 * on, so its own absolute URLs stay on its origin (replay still finds a capture nearer another time).
 */
export function hostTarget(addresses: ReplayAddresses, timestamp: string): RewriteTarget {
  return {
    address: (href) => addresses.replayUrl(href, timestamp),
    isReplay: (url) => addresses.isReplayOrigin(url.origin),
    leaveResolving: true,
  };
}

/** Rewriting onto the paths of one replay origin, pywb style: `/{timestamp}{modifier}/{url}`. */
export function pathTarget(replayOrigin: string, timestamp: string, modifier: ReplayModifier = ''): RewriteTarget {
  return {
    address: (href) => replayOrigin + replayPath(href, timestamp, modifier),
    isReplay: (url) => url.origin === replayOrigin,
    leaveResolving: false,
  };
}

/**
 * Rewrites each URL of a `srcset` (or `imagesrcset`) in place, keeping descriptors and separators.
 * The URLs are those the crawl fetched for it (HTML's "parse a srcset attribute"), so a candidate a
 * browser loads is never left pointing at the live site.
 */
export function rewriteSrcset(srcset: string, rewrite: RewriteUrl): string {
  let out = '';
  let copied = 0;
  parseSrcset(srcset, (url, start, end) => {
    out += srcset.slice(copied, start) + rewrite(url);
    copied = end;
  });
  return out + srcset.slice(copied);
}

/** Rewrites each space-separated URL of a `ping` attribute. */
export function rewriteUrlList(list: string, rewrite: RewriteUrl): string {
  return list.replace(/[^\t\n\f\r ]+/g, (url) => rewrite(url));
}

/**
 * Rewrites the URL of a `<meta http-equiv="refresh">` content (`5; url=/next`), keeping the delay
 * and any quotes; read as the crawl reads it (HTML's "shared declarative refresh steps"). A content
 * with no URL, or that is no refresh at all, comes back unchanged: a browser goes nowhere with it.
 */
export function rewriteRefresh(content: string, rewrite: RewriteUrl): string {
  const url = findRefreshUrl(content);
  if (url === undefined) return content;
  return content.slice(0, url.start) + rewrite(content.slice(url.start, url.end)) + content.slice(url.end);
}
