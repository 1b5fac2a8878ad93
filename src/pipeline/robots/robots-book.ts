import type { RobotsRules } from './robots-rules.js';

/**
 * How long a robots.txt that could not be had (5xx, no answer) keeps its
 * origin disallowed before it is asked for again within one run. RFC 9309
 * §2.3.1.4 asks for a complete disallow meanwhile and lets the crawler pick
 * how long; a few minutes keeps a long crawl from writing off a site that
 * was down for a moment without asking a sick server over and over.
 */
export const ROBOTS_RETRY_MS = 5 * 60_000;

type Entry = 'fetching' | { rules: RobotsRules; at: number };

/**
 * robots.txt rules per origin for the crawl. An origin is `unknown` until
 * its robots.txt is fetched, `fetching` meanwhile; nothing else is requested
 * there before it is known. Rules from an unavailable robots.txt turn
 * `unknown` again after `retryMs`, so it is fetched again. Grows with
 * origins, not with URLs.
 */
export class RobotsBook {
  private readonly entries = new Map<string, Entry>();
  /** Origins whose robots.txt was unavailable in this run: their refused URLs get another chance once it answers. */
  private readonly outages = new Set<string>();

  constructor(
    readonly obey: boolean,
    private readonly retryMs: number = ROBOTS_RETRY_MS,
  ) {}

  state(origin: string, now: number = Date.now()): 'unknown' | 'fetching' | 'known' {
    if (!this.obey) return 'known';
    const entry = this.entries.get(origin);
    if (entry === undefined) return 'unknown';
    if (entry === 'fetching') return 'fetching';
    return entry.rules.unavailable && now - entry.at >= this.retryMs ? 'unknown' : 'known';
  }

  startFetching(origin: string): void {
    this.entries.set(origin, 'fetching');
  }

  /** Records an origin's rules; true when robots.txt answered after an outage earlier in this run. */
  set(origin: string, rules: RobotsRules, now: number = Date.now()): boolean {
    this.entries.set(origin, { rules, at: now });
    if (rules.unavailable) {
      this.outages.add(origin);
      return false;
    }
    return this.outages.delete(origin);
  }

  /** Forgets an origin whose robots.txt fetch was interrupted, so it is fetched again. */
  forget(origin: string): void {
    if (this.entries.get(origin) === 'fetching') this.entries.delete(origin);
  }

  rules(origin: string): RobotsRules | undefined {
    const entry = this.entries.get(origin);
    return entry === undefined || entry === 'fetching' ? undefined : entry.rules;
  }
}
