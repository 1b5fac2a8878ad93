/** A URL in its one canonical spelling, or why there is none. */
export type Normalized = { url: string } | { error: 'invalid' | 'scheme'; detail: string };

const CRAWLABLE = new Set(['http:', 'https:']);

/**
 * WHATWG parsing already lower-cases scheme and host, drops default ports
 * and resolves dot segments; this adds fragment removal and the scheme rule,
 * so two spellings of one page become one string.
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
  return { url: parsed.href };
}

/** A root typed without a scheme (`example.com/docs`) is taken as http. */
export function withDefaultScheme(input: string): string {
  const trimmed = input.trim();
  return /^[a-z][a-z\d+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
}
