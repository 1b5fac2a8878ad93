import { urlKey } from './url-key.js';

/** A URL as it is fetched, the key it is deduplicated on, and its origin. */
export interface NormalizedUrl {
  url: string;
  key: string;
  origin: string;
  /** Origin and path of a URL with a query, to count query variants of one path. */
  pathKey?: string;
}

/** A URL in its canonical spelling, or why there is none. */
export type Normalized = NormalizedUrl | { error: 'invalid' | 'scheme'; detail: string };

const CRAWLABLE = new Set(['http:', 'https:']);

/**
 * WHATWG parsing already lower-cases scheme and host, drops default ports,
 * resolves dot segments and percent-encodes IRIs; this adds fragment removal
 * and the scheme rule. The fetch URL is what WHATWG serialises; the key also
 * evens out percent-encoding, so two spellings of one page are one row while
 * the server is asked for exactly what the page linked to.
 */
export function normalizeUrl(href: string, base?: string | URL): Normalized {
  let parsed: URL;
  try {
    parsed = new URL(href, base);
  } catch {
    return { error: 'invalid', detail: href };
  }
  if (!CRAWLABLE.has(parsed.protocol)) return { error: 'scheme', detail: parsed.protocol };
  parsed.hash = '';
  const normalized: NormalizedUrl = { url: parsed.href, key: urlKey(parsed.href), origin: parsed.origin };
  if (parsed.search) normalized.pathKey = parsed.origin + parsed.pathname;
  return normalized;
}

/** A root typed without a scheme (`example.com/docs`) is taken as http. */
export function withDefaultScheme(input: string): string {
  const trimmed = input.trim();
  return /^[a-z][a-z\d+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
}
