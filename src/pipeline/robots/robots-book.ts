import type { RobotsRules } from './robots-rules.js';

/**
 * robots.txt rules per origin for the crawl. An origin is `unknown` until
 * its robots.txt is fetched, `fetching` meanwhile; nothing else is requested
 * there before it is known. Grows with origins, not with URLs.
 */
export class RobotsBook {
  private readonly entries = new Map<string, 'fetching' | RobotsRules>();

  constructor(readonly obey: boolean) {}

  state(origin: string): 'unknown' | 'fetching' | 'known' {
    if (!this.obey) return 'known';
    const entry = this.entries.get(origin);
    if (entry === undefined) return 'unknown';
    return entry === 'fetching' ? 'fetching' : 'known';
  }

  startFetching(origin: string): void {
    this.entries.set(origin, 'fetching');
  }

  set(origin: string, rules: RobotsRules): void {
    this.entries.set(origin, rules);
  }

  /** Forgets an origin whose robots.txt fetch was interrupted, so it is fetched again. */
  forget(origin: string): void {
    if (this.entries.get(origin) === 'fetching') this.entries.delete(origin);
  }

  rules(origin: string): RobotsRules | undefined {
    const entry = this.entries.get(origin);
    return entry === undefined || entry === 'fetching' ? undefined : entry;
  }
}
