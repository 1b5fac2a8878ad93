import { lastValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import { obeyRobots } from '../../src/pipeline/operators/obey-robots.js';
import { RobotsBook } from '../../src/pipeline/robots/robots-book.js';
import { robotsRules } from '../../src/pipeline/robots/robots-rules.js';

const pending = (url: string, kind: CrawlItem['claim']['kind'] = 'page'): CrawlItem => ({
  claim: {
    id: 1,
    url,
    key: url,
    origin: new URL(url).origin,
    kind,
    depth: 1,
    redirectHops: 0,
    tries: 0,
    lease: { token: 'test', expiresAt: Infinity },
  },
  attempts: 0,
  state: 'pending',
  discovered: [],
});

function book(obey: boolean): RobotsBook {
  const robots = new RobotsBook(obey);
  robots.set(
    'http://site',
    robotsRules('http://site/robots.txt', { status: 200, body: Buffer.from('User-agent: *\nDisallow: /private/\n') }, 'crawlite'),
  );
  return robots;
}

describe('obeyRobots', () => {
  it('skips a disallowed URL before any request, with the reason', async () => {
    const out = await lastValueFrom(of(pending('http://site/private/a')).pipe(obeyRobots(book(true))));
    expect(out).toMatchObject({ state: 'skipped', error: { code: 'robots', message: expect.stringContaining('http://site/robots.txt') } });
  });

  it('lets allowed URLs, robots.txt itself, and everything under --ignore-robots through', async () => {
    expect((await lastValueFrom(of(pending('http://site/public')).pipe(obeyRobots(book(true))))).state).toBe('pending');
    expect((await lastValueFrom(of(pending('http://site/private/robots.txt', 'robots')).pipe(obeyRobots(book(true))))).state).toBe(
      'pending',
    );
    expect((await lastValueFrom(of(pending('http://site/private/a')).pipe(obeyRobots(new RobotsBook(false))))).state).toBe('pending');
  });
});
