import { trimUrl } from '../../html/index.js';
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

const isAsciiWhitespace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/**
 * Rewrites each URL of a `srcset` (or `imagesrcset`), keeping descriptors and separators: a URL
 * runs to whitespace and loses trailing commas, as in HTML's "parse a srcset attribute".
 */
export function rewriteSrcset(srcset: string, rewrite: RewriteUrl): string {
  let out = '';
  let i = 0;
  const end = srcset.length;
  while (i < end) {
    const skipStart = i;
    while (i < end && (isAsciiWhitespace(srcset.charCodeAt(i)) || srcset.charCodeAt(i) === 0x2c)) i++;
    out += srcset.slice(skipStart, i);
    if (i >= end) break;
    const urlStart = i;
    while (i < end && !isAsciiWhitespace(srcset.charCodeAt(i))) i++;
    let urlEnd = i;
    while (urlEnd > urlStart && srcset.charCodeAt(urlEnd - 1) === 0x2c) urlEnd--;
    out += rewrite(srcset.slice(urlStart, urlEnd)) + srcset.slice(urlEnd, i);
    if (urlEnd < i) continue; // A trailing comma ended this candidate: no descriptors.
    // Descriptors run to the next comma outside parentheses.
    const descStart = i;
    let depth = 0;
    while (i < end) {
      const c = srcset.charCodeAt(i);
      if (c === 0x28) depth++;
      else if (c === 0x29 && depth > 0) depth--;
      else if (c === 0x2c && depth === 0) break;
      i++;
    }
    out += srcset.slice(descStart, i);
  }
  return out;
}

/** Rewrites each space-separated URL of a `ping` attribute. */
export function rewriteUrlList(list: string, rewrite: RewriteUrl): string {
  return list.replace(/[^\t\n\f\r ]+/g, (url) => rewrite(url));
}

/**
 * Rewrites the URL of a `<meta http-equiv="refresh">` content (`5; url=/next`), keeping the delay;
 * a content with no URL comes back unchanged.
 */
export function rewriteRefresh(content: string, rewrite: RewriteUrl): string {
  const match = /^(\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?)(.*)$/is.exec(content);
  if (!match) return content;
  const [, prefix, rest] = match as unknown as [string, string, string];
  if (rest.trim() === '') return content;
  const quote = rest[0] === '"' || rest[0] === "'" ? rest[0] : '';
  const close = quote ? rest.indexOf(quote, 1) : -1;
  const url = quote ? rest.slice(1, close < 0 ? undefined : close) : rest;
  return `${prefix}${quote}${rewrite(url)}${quote}${quote && close >= 0 ? rest.slice(close + 1) : ''}`;
}
