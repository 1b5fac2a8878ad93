import type { CrawlOptions } from '../pipeline/crawl-options.js';
import { MAX_IN_FLIGHT } from '../pipeline/crawl-limits.js';
import type { FetcherFactory } from '../pipeline/fetcher.js';
import { CrawlCookies } from './cookie-jar.js';
import { HttpClient, type HttpClientSettings } from './http-client.js';

/**
 * What the crawl sends that is not stored with its options, because it may
 * hold secrets: extra headers, cookies, a proxy (with its credentials).
 */
export type SessionSettings = Pick<HttpClientSettings, 'headers' | 'cookies' | 'proxy'>;

/** The crawl's fetcher: an HttpClient with the crawl's limits and the session's headers, cookies and proxy. */
export function httpFetcher(options: CrawlOptions, session: SessionSettings = {}): FetcherFactory {
  return ({ onSent }) =>
    new HttpClient({
      // The crawl's caps (which `crawlite control set` may raise while it runs) bound the connections in use;
      // the pool opens one only when every open one is busy, so its own bound is the highest cap there is.
      connections: MAX_IN_FLIGHT,
      timeoutMs: options.timeoutMs,
      maxBodyBytes: options.maxBodyBytes,
      userAgent: options.userAgent,
      ...session,
      // Cookies servers set are kept for the run, as wget and browsers do.
      cookies: session.cookies ?? new CrawlCookies(),
      onSent,
    });
}
