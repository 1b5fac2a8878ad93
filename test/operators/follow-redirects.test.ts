import { lastValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import { followRedirects } from '../../src/pipeline/operators/follow-redirects.js';

const redirect = (status: number, location: string | undefined, redirectHops = 0): CrawlItem => ({
  claim: {
    id: 1,
    url: 'http://site/dir/page',
    key: 'http://site/dir/page',
    origin: 'http://site',
    kind: 'page',
    depth: 2,
    redirectHops,
    tries: 0,
    lease: { token: 'test', expiresAt: Infinity },
  },
  attempts: 1,
  state: 'done',
  response: {
    status,
    headers: location === undefined ? {} : { location },
    ...(location === undefined ? {} : { location }),
    body: Buffer.alloc(0),
    fetchedAt: '',
    elapsedMs: 1,
  },
  discovered: [],
});
const run = (item: CrawlItem, max = 10) => lastValueFrom(of(item).pipe(followRedirects(max)));

describe('followRedirects', () => {
  it.each([301, 302, 303, 307, 308])('turns a %i into a discovered URL one hop on, at the same depth', async (status) => {
    const out = await run(redirect(status, '../other#frag', 3));
    expect(out.state).toBe('done');
    expect(out.discovered).toEqual([
      {
        url: 'http://site/other',
        key: 'http://site/other',
        origin: 'http://site',
        kind: 'redirect',
        target: 'page',
        depth: 2,
        redirectHops: 4,
      },
    ]);
  });

  it('fetches the target as what the source was: a requisite stays a requisite', async () => {
    const item = redirect(302, '/img.png');
    item.claim.kind = 'requisite';
    expect((await run(item)).discovered[0]).toMatchObject({ kind: 'redirect', target: 'requisite' });
  });

  it('leaves a 3xx without Location as a page with no follow-up', async () => {
    const out = await run(redirect(302, undefined));
    expect(out).toMatchObject({ state: 'done', discovered: [] });
  });

  it('does not treat other statuses as redirects', async () => {
    expect((await run(redirect(300, '/x'))).discovered).toEqual([]);
    expect((await run(redirect(304, '/x'))).discovered).toEqual([]);
  });

  it('fails the URL once the redirect budget is spent', async () => {
    const out = await run(redirect(301, '/next', 5), 5);
    expect(out).toMatchObject({ state: 'failed', discovered: [], error: { code: 'too_many_redirects' } });
  });

  it.each(['file:///etc/passwd', 'ftp://site/x', 'javascript:alert(1)', 'http://[bad'])('never follows %s', async (location) => {
    const out = await run(redirect(302, location));
    expect(out).toMatchObject({ state: 'failed', discovered: [], error: { code: 'bad_redirect' } });
  });

  describe('when the caller follows the chain (robots.txt)', () => {
    const byCaller = (item: CrawlItem, max = 5) => lastValueFrom(of(item).pipe(followRedirects(max, 'caller')));

    it('records the target as a link only, never queued, one hop on', async () => {
      const item = redirect(301, '/real-robots.txt', 2);
      item.claim.kind = 'robots';
      expect((await byCaller(item)).discovered).toEqual([
        {
          url: 'http://site/real-robots.txt',
          key: 'http://site/real-robots.txt',
          origin: 'http://site',
          kind: 'redirect',
          target: 'robots',
          depth: 2,
          redirectHops: 3,
          linkOnly: true,
        },
      ]);
    });

    it.each([
      ['past its own budget', redirect(301, '/next', 5)],
      ['to a URL that is not http(s)', redirect(302, 'ftp://site/x')],
    ])('leaves a redirect %s as it came, for the caller to judge', async (_, item) => {
      expect(await byCaller(item)).toEqual(item);
    });
  });
});
