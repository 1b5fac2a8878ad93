import { describe, expect, it } from 'vitest';
import { robotsRules } from '../../src/pipeline/robots/robots-rules.js';

const ROBOTS = 'http://site/robots.txt';
const txt = (text: string) => ({ status: 200, body: Buffer.from(text) });

describe('robotsRules (RFC 9309)', () => {
  it('matches the group of our user-agent token, else *, longest match winning', () => {
    const rules = robotsRules(
      ROBOTS,
      txt('User-agent: *\nDisallow: /\n\nUser-agent: crawlite\nDisallow: /private/\nAllow: /private/open\nSitemap: http://site/s.xml\n'),
      'crawlite/1.2.3',
    );
    expect(rules.refuses('http://site/public')).toBeUndefined();
    expect(rules.refuses('http://site/private/x')).toEqual({ code: 'robots', message: expect.stringContaining(ROBOTS) });
    expect(rules.refuses('http://site/private/open/y')).toBeUndefined();
    expect(rules.sitemaps).toEqual(['http://site/s.xml']);
    expect(robotsRules(ROBOTS, txt('User-agent: *\nDisallow: /\n'), 'otherbot').refuses('http://site/a')).toMatchObject({ code: 'robots' });
  });

  it('honours Crawl-delay, capped at 30 s', () => {
    expect(robotsRules(ROBOTS, txt('User-agent: *\nCrawl-delay: 1.5\n'), 'crawlite').crawlDelayMs).toBe(1500);
    expect(robotsRules(ROBOTS, txt('User-agent: *\nCrawl-delay: 3600\n'), 'crawlite').crawlDelayMs).toBe(30_000);
  });

  it('allows everything when robots.txt is a 4xx', () => {
    expect(robotsRules(ROBOTS, { status: 404 }, 'crawlite').refuses('http://site/x')).toBeUndefined();
    expect(robotsRules(ROBOTS, { status: 403 }, 'crawlite').refuses('http://site/x')).toBeUndefined();
  });

  it('disallows the whole origin when robots.txt is a 5xx or does not answer', () => {
    expect(robotsRules(ROBOTS, { status: 503 }, 'crawlite').refuses('http://site/x')).toMatchObject({ code: 'robots_unavailable' });
    expect(robotsRules(ROBOTS, { error: 'timeout' }, 'crawlite').refuses('http://site/x')).toEqual({
      code: 'robots_unavailable',
      message: expect.stringContaining('timeout'),
    });
  });
});
