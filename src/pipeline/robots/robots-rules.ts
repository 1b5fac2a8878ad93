import { createRequire } from 'node:module';
import type { Reason } from '../ports.js';
import { MAX_CRAWL_DELAY_MS } from '../crawl-options.js';

/** What robots.txt says for one origin, as the crawler uses it. */
export interface RobotsRules {
  /** Why the URL may not be fetched, or undefined when it may. */
  refuses(url: string): Reason | undefined;
  /** Crawl-delay for our user-agent, capped. */
  crawlDelayMs?: number;
  sitemaps: string[];
  /** robots.txt could not be had (5xx, no answer): everything is refused for now, and it is asked for again later. */
  unavailable?: true;
}

// robots-parser is CommonJS whose typings declare an ES default export; require() gets the function itself.
const robotsParser = createRequire(import.meta.url)('robots-parser') as typeof import('robots-parser').default;

const ALLOW_ALL: RobotsRules = { refuses: () => undefined, sitemaps: [] };

/**
 * Rules from the outcome of fetching robots.txt, per RFC 9309: a 2xx is
 * parsed; a 4xx (or too many redirects) means no rules; a 5xx or no answer
 * at all means the whole origin is disallowed (§2.3.1.3, §2.3.1.4).
 */
export function robotsRules(
  robotsUrl: string,
  outcome: { status?: number; body?: Uint8Array; error?: string },
  userAgent: string,
): RobotsRules {
  const { status } = outcome;
  if (status !== undefined && status >= 200 && status <= 299) {
    const parsed = robotsParser(robotsUrl, new TextDecoder('utf-8').decode(outcome.body ?? new Uint8Array()));
    const delay = parsed.getCrawlDelay(userAgent);
    const rules: RobotsRules = {
      refuses: (url) =>
        parsed.isAllowed(url, userAgent) === false
          ? { code: 'robots', message: `disallowed by ${robotsUrl} (line ${parsed.getMatchingLineNumber(url, userAgent)})` }
          : undefined,
      sitemaps: parsed.getSitemaps(),
    };
    if (delay !== undefined && Number.isFinite(delay) && delay > 0) rules.crawlDelayMs = Math.min(delay * 1000, MAX_CRAWL_DELAY_MS);
    return rules;
  }
  if (status !== undefined && status < 500) return ALLOW_ALL;
  const why = status !== undefined ? `HTTP ${status}` : (outcome.error ?? 'no answer');
  return {
    refuses: () => ({
      code: 'robots_unavailable',
      message: `${robotsUrl} could not be fetched (${why}), so the origin is treated as disallowed`,
    }),
    sitemaps: [],
    unavailable: true,
  };
}
