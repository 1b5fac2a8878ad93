import { findRefreshUrl, parseSrcset, trimUrl } from '../../html/index.js';
import { replayPath, type ReplayModifier } from '../replay-url.js';

/** Turns a URL as a page writes it into the URL that replays it; anything else comes back unchanged. */
export type RewriteUrl = (raw: string) => string;

/** Schemes that name no archived resource: left as written (javascript:, data:, blob:, mailto:, tel:, about:...). */
const REPLAYED_SCHEMES = new Set(['http:', 'https:']);

/**
 * Rewrites URLs found in a capture: each is resolved against the capture's URL (or its `<base>`)
 * and pointed at the replay origin with the capture's timestamp, which replay then takes as "the
 * capture nearest this time". A bare `#fragment` stays in the page; a URL that does not parse is
 * left as written, as the browser would fail on it too.
 */
export function urlRewriter(base: string, timestamp: string, replayOrigin: string, modifier: ReplayModifier = ''): RewriteUrl {
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
    // Already a replay URL (a page saved from a replay, or rewritten twice): leave it be.
    if (resolved.origin === replayOrigin) return raw;
    return replayOrigin + replayPath(resolved.href, timestamp, modifier);
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
