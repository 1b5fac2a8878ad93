/** The absolute URL of `path` on a test server (anything with a `url` origin), as the archive stores it. */
export const abs = (server: { url: string }, path: string): string => new URL(path, server.url).href;

/** A URL's path and query: how the test servers count hits. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}
