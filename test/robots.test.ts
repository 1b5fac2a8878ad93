import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, serverPool, text, type Route, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

const tmp = tempDir();
const servers = serverPool();

/** Starts a server and remembers it, so afterAll closes every one. */
afterAll(async () => {
  await servers.closeAll();
  tmp.cleanup();
});

interface UrlRow {
  state: string;
  error_code: string | null;
  error: string | null;
}
/** The URL's state and reason; error_code is only in the table, the views show the message. */
const urlRow = (db: string, url: string) => readArchive<UrlRow>(db, 'SELECT state, error_code, error FROM url WHERE url = ?', url)[0];
const robotsPages = (db: string) =>
  readArchive<{ url: string; status: number; location: string | null }>(
    db,
    "SELECT url, status, location FROM pages WHERE kind = 'robots' ORDER BY url",
  );

/** Every request start on a server, as [path, time], sorted by time. */
const allStarts = (server: TestServer) =>
  [...server.starts].flatMap(([path, times]) => times.map((time) => [path, time] as const)).sort((a, b) => a[1] - b[1]);

/** A small site with robots-relevant pages; the same table serves the obeying and the ignoring crawl. */
const siteTable = (robots: string): Record<string, Route> => ({
  // robots.txt answers slowly, so a page requested alongside it (not after it) would show.
  '/robots.txt': text(robots, { delayMs: 150 }),
  '/': html(`
    <a href="/public">public</a>
    <a href="/private/secret">secret</a>
    <a href="/private/open">open</a>
    <a rel="nofollow" href="/nofollowed">nofollow</a>
    <a rel="external nofollow" href="/later">nofollow first</a>
    <a href="/meta-nofollow">meta nofollow</a>
    <a href="/meta-noindex">meta noindex</a>`),
  // Found from the root with nofollow, then here by a followable link.
  '/public': html('<a href="/later">later, followable</a>'),
  '/private/secret': html('secret'),
  '/private/open': html('open'),
  '/nofollowed': html('not to be followed'),
  '/later': html('later'),
  '/meta-nofollow': {
    headers: { 'content-type': 'text/html' },
    body: '<html><head><meta name="robots" content="nofollow"><title>mn</title></head><body><a href="/behind-meta">behind</a></body></html>',
  },
  '/behind-meta': html('behind a meta nofollow'),
  '/meta-noindex': {
    headers: { 'content-type': 'text/html' },
    body: '<html><head><meta name="robots" content="noindex, noarchive"><title>hidden from indexes</title></head><body>kept</body></html>',
  },
  '/second': html('<a href="/private/second">private</a> <a href="/second-public">public</a>'),
  '/second-public': html('second public'),
  '/private/second': html('private second'),
});

const SITE_ROBOTS = 'User-agent: *\nDisallow: /private/\nAllow: /private/open\n';

describe('robots.txt rules, obeyed', () => {
  let site: TestServer;
  let other: TestServer;
  const db = tmp.path('robots.sqlite');

  beforeAll(async () => {
    site = await servers.serve(routes(siteTable(SITE_ROBOTS)));
    other = await servers.serve(
      routes({
        '/robots.txt': text('User-agent: *\nDisallow: /no/\n', { delayMs: 150 }),
        '/': html('<a href="/yes">yes</a> <a href="/no/x">no</a> <a href="/yes2">yes2</a>'),
        '/yes': html('yes'),
        '/yes2': html('yes2'),
        '/no/x': html('no'),
      }),
    );
    const result = await runCli(['crawl', site.url, other.url, '--db', db, '-q', '-c', '4']);
    expect(result.code, result.stderr).toBe(0);
  });

  it('never requests a disallowed URL and marks it skipped, naming robots.txt', () => {
    expect(site.hitCount('/private/secret')).toBe(0);
    expect(other.hitCount('/no/x')).toBe(0);
    const secret = readArchive<{ state: string; error: string }>(
      db,
      'SELECT state, error FROM urls WHERE url = ?',
      abs(site, '/private/secret'),
    )[0];
    expect(secret).toEqual({ state: 'skipped', error: expect.stringContaining('robots.txt') });
    expect(urlRow(db, abs(site, '/private/secret'))!.error_code).toBe('robots');
    expect(urlRow(db, abs(other, '/no/x'))).toMatchObject({
      state: 'skipped',
      error_code: 'robots',
      error: expect.stringContaining('robots.txt'),
    });
    expect(readArchive(db, 'SELECT url FROM pages WHERE url IN (?, ?)', abs(site, '/private/secret'), abs(other, '/no/x'))).toEqual([]);
  });

  it('fetches what robots.txt allows, an Allow inside a disallowed directory included', () => {
    for (const path of ['/', '/public', '/private/open', '/meta-nofollow', '/meta-noindex']) expect(site.hitCount(path), path).toBe(1);
    for (const path of ['/', '/yes', '/yes2']) expect(other.hitCount(path), path).toBe(1);
    expect(urlRow(db, abs(site, '/private/open'))).toMatchObject({ state: 'done' });
  });

  it('fetches robots.txt exactly once per origin, before any other request there', () => {
    for (const server of [site, other]) {
      expect(server.hitCount('/robots.txt')).toBe(1);
      const starts = allStarts(server);
      expect(starts[0]![0]).toBe('/robots.txt');
      expect(starts.filter(([path]) => path !== '/robots.txt').length).toBeGreaterThan(1);
      // robots.txt takes 150 ms to answer: nothing else is sent before its answer is in, as the crawler
      // noted both (when it read robots.txt's answer, when it sent each other request).
      const [robots] = readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM pages WHERE url = ?', abs(server, '/robots.txt'));
      const others = readArchive<{ url: string; started_at: string }>(
        db,
        'SELECT url, started_at FROM pages WHERE url LIKE ? AND url != ?',
        `${server.url}%`,
        abs(server, '/robots.txt'),
      );
      expect(others.length).toBeGreaterThan(1);
      for (const { url, started_at } of others) expect(Date.parse(started_at), url).toBeGreaterThanOrEqual(Date.parse(robots!.fetched_at));
    }
  });

  it('stores each robots.txt as a page of kind robots', () => {
    expect(robotsPages(db)).toEqual(
      [
        { url: abs(other, '/robots.txt'), status: 200, location: null },
        { url: abs(site, '/robots.txt'), status: 200, location: null },
      ].sort((a, b) => a.url.localeCompare(b.url)),
    );
    const [stored] = readArchive<{ body: Buffer }>(db, 'SELECT body FROM pages WHERE url = ?', abs(site, '/robots.txt'));
    expect(Buffer.from(stored!.body).toString()).toBe(SITE_ROBOTS);
    expect(readArchive(db, 'SELECT kind FROM urls WHERE url = ?', abs(site, '/robots.txt'))).toEqual([{ kind: 'robots' }]);
  });

  it('records rel="nofollow" links with nofollow=1 and skips their URLs', () => {
    expect(site.hitCount('/nofollowed')).toBe(0);
    expect(
      readArchive(db, 'SELECT nofollow FROM links WHERE from_url = ? AND to_url = ?', abs(site, '/'), abs(site, '/nofollowed')),
    ).toEqual([{ nofollow: 1 }]);
    expect(urlRow(db, abs(site, '/nofollowed'))).toMatchObject({ state: 'skipped', error_code: 'nofollow' });
    // An ordinary link is recorded with nofollow=0.
    expect(readArchive(db, 'SELECT nofollow FROM links WHERE from_url = ? AND to_url = ?', abs(site, '/'), abs(site, '/public'))).toEqual([
      { nofollow: 0 },
    ]);
  });

  it('follows no link of a page with <meta name="robots" content="nofollow">', () => {
    expect(site.hitCount('/behind-meta')).toBe(0);
    expect(
      readArchive(
        db,
        'SELECT nofollow FROM links WHERE from_url = ? AND to_url = ?',
        abs(site, '/meta-nofollow'),
        abs(site, '/behind-meta'),
      ),
    ).toEqual([{ nofollow: 1 }]);
    expect(urlRow(db, abs(site, '/behind-meta'))).toMatchObject({ state: 'skipped', error_code: 'nofollow' });
    expect(readArchive(db, 'SELECT robots FROM pages WHERE url = ?', abs(site, '/meta-nofollow'))).toEqual([{ robots: 'nofollow' }]);
  });

  it('fetches a URL first seen through nofollow once a followable link to it turns up', () => {
    expect(readArchive(db, 'SELECT nofollow FROM links WHERE from_url = ? AND to_url = ?', abs(site, '/'), abs(site, '/later'))).toEqual([
      { nofollow: 1 },
    ]);
    expect(
      readArchive(db, 'SELECT nofollow FROM links WHERE from_url = ? AND to_url = ?', abs(site, '/public'), abs(site, '/later')),
    ).toEqual([{ nofollow: 0 }]);
    expect(site.hitCount('/later')).toBe(1);
    expect(urlRow(db, abs(site, '/later'))).toEqual({ state: 'done', error_code: null, error: null });
  });

  it('records <meta name="robots" content="noindex, noarchive"> and still archives the page', () => {
    const [page] = readArchive<{ status: number; robots: string; title: string; body: Buffer }>(
      db,
      'SELECT status, robots, title, body FROM pages WHERE url = ?',
      abs(site, '/meta-noindex'),
    );
    expect(page).toMatchObject({ status: 200, title: 'hidden from indexes' });
    expect(page!.robots.split(',').map((directive) => directive.trim())).toEqual(['noindex', 'noarchive']);
    expect(Buffer.from(page!.body).toString()).toContain('kept');
  });

  it('reads robots.txt from the archive on a later run instead of fetching it again', async () => {
    const result = await runCli(['crawl', abs(site, '/second'), '--db', db, '-q']);
    expect(result.code, result.stderr).toBe(0);
    // The new root was crawled, with the stored rules: no second robots.txt request.
    expect(site.hitCount('/second')).toBe(1);
    expect(site.hitCount('/second-public')).toBe(1);
    expect(site.hitCount('/robots.txt')).toBe(1);
    expect(site.hitCount('/private/second')).toBe(0);
    expect(urlRow(db, abs(site, '/private/second'))).toMatchObject({
      state: 'skipped',
      error_code: 'robots',
      error: expect.stringContaining('robots.txt'),
    });
    // Nothing already archived was fetched again either.
    expect(site.hitCount('/')).toBe(1);
  });
});

describe('--ignore-robots', () => {
  let site: TestServer;
  const db = tmp.path('ignore.sqlite');

  beforeAll(async () => {
    site = await servers.serve(routes(siteTable(SITE_ROBOTS)));
    const result = await runCli(['crawl', site.url, '--db', db, '-q', '--ignore-robots']);
    expect(result.code, result.stderr).toBe(0);
  });

  it('never requests robots.txt and fetches what it disallows', () => {
    expect(site.hitCount('/robots.txt')).toBe(0);
    expect(site.hitCount('/private/secret')).toBe(1);
    expect(urlRow(db, abs(site, '/private/secret'))).toMatchObject({ state: 'done' });
    expect(robotsPages(db)).toEqual([]);
  });

  it('follows rel="nofollow" links and the links of a meta-nofollow page', () => {
    expect(site.hitCount('/nofollowed')).toBe(1);
    expect(site.hitCount('/behind-meta')).toBe(1);
    expect(site.hitCount('/later')).toBe(1);
    expect(urlRow(db, abs(site, '/nofollowed'))).toMatchObject({ state: 'done' });
    expect(urlRow(db, abs(site, '/behind-meta'))).toMatchObject({ state: 'done' });
  });
});

describe('robots.txt answers', () => {
  it('a 404 robots.txt allows everything', async () => {
    const site = await servers.serve(
      routes({
        '/': html('<a href="/private/a">a</a> <a href="/b">b</a>'),
        '/private/a': html('a'),
        '/b': html('b'),
      }),
    );
    const db = tmp.path('404.sqlite');
    const result = await runCli(['crawl', site.url, '--db', db, '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(site.hitCount('/robots.txt')).toBe(1);
    for (const path of ['/', '/private/a', '/b']) expect(site.hitCount(path), path).toBe(1);
    expect(robotsPages(db)).toEqual([{ url: abs(site, '/robots.txt'), status: 404, location: null }]);
    expect(readArchive(db, "SELECT count(*) AS n FROM urls WHERE state = 'skipped'")).toEqual([{ n: 0 }]);
  });

  it('a robots.txt that keeps answering 503 disallows the whole origin', async () => {
    const site = await servers.serve(
      routes({
        '/robots.txt': { status: 503, body: 'down for maintenance' },
        '/': html('<a href="/a">a</a>'),
        '/a': html('a'),
      }),
    );
    const db = tmp.path('503.sqlite');
    const result = await runCli(['crawl', site.url, '--db', db, '-q', '--max-tries', '2', '--retry-delay', '10']);
    // The only root was never fetched: the crawl says so and fails.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^crawlite: no root could be fetched: .*robots\.txt could not be fetched/m);
    expect(site.hitCount('/robots.txt')).toBe(2);
    expect(site.totalHits()).toBe(2);
    expect(urlRow(db, abs(site, '/'))).toEqual({
      state: 'skipped',
      error_code: 'robots_unavailable',
      error: expect.stringContaining('robots.txt'),
    });
    expect(robotsPages(db)).toEqual([{ url: abs(site, '/robots.txt'), status: 503, location: null }]);
  });

  it('a robots.txt that never answers disallows the whole origin', async () => {
    const site = await servers.serve((req, res, path) => {
      if (path === '/robots.txt') return; // never answered
      return routes({ '/': html('<a href="/a">a</a>'), '/a': html('a') })(req, res, path);
    });
    const db = tmp.path('hang.sqlite');
    const result = await runCli(['crawl', site.url, '--db', db, '-q', '--timeout', '300', '--max-tries', '2', '--retry-delay', '10']);
    // The only root was never fetched: the crawl says so and fails.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^crawlite: no root could be fetched: .*robots\.txt could not be fetched/m);
    expect(site.hitCount('/robots.txt')).toBe(2);
    expect(site.hitCount('/')).toBe(0);
    expect(site.totalHits()).toBe(2);
    expect(urlRow(db, abs(site, '/'))).toEqual({
      state: 'skipped',
      error_code: 'robots_unavailable',
      error: expect.stringContaining('robots.txt'),
    });
    expect(robotsPages(db)).toEqual([]);
  });

  it('follows a redirect of robots.txt and uses the rules it leads to, storing both hops', async () => {
    const site = await servers.serve(
      routes({
        '/robots.txt': { status: 301, headers: { location: '/real-robots.txt' } },
        '/real-robots.txt': text('User-agent: *\nDisallow: /hidden\n'),
        '/': html('<a href="/hidden">hidden</a> <a href="/shown">shown</a>'),
        '/hidden': html('hidden'),
        '/shown': html('shown'),
      }),
    );
    const db = tmp.path('redirect.sqlite');
    const result = await runCli(['crawl', site.url, '--db', db, '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(site.hitCount('/robots.txt')).toBe(1);
    expect(site.hitCount('/real-robots.txt')).toBe(1);
    expect(site.hitCount('/hidden')).toBe(0);
    expect(site.hitCount('/shown')).toBe(1);
    expect(urlRow(db, abs(site, '/hidden'))).toMatchObject({
      state: 'skipped',
      error_code: 'robots',
      error: expect.stringContaining('robots.txt'),
    });
    expect(robotsPages(db)).toEqual([
      { url: abs(site, '/real-robots.txt'), status: 200, location: null },
      { url: abs(site, '/robots.txt'), status: 301, location: '/real-robots.txt' },
    ]);
    // Both hops came before any page.
    const firstPage = site.starts.get('/')![0]!;
    expect(site.starts.get('/real-robots.txt')![0]!).toBeLessThan(firstPage);
  });

  it("the group for our user-agent token wins over '*'", async () => {
    const agents: string[] = [];
    const table = routes({
      '/robots.txt': text('User-agent: *\nDisallow: /\n\nUser-agent: mybot\nDisallow: /not-for-mybot\n'),
      '/': html('<a href="/page">page</a> <a href="/not-for-mybot">no</a>'),
      '/page': html('page'),
      '/not-for-mybot': html('no'),
    });
    const site = await servers.serve((req, res, path) => {
      agents.push(String(req.headers['user-agent']));
      return table(req, res, path);
    });
    const db = tmp.path('agent.sqlite');
    const result = await runCli(['crawl', site.url, '--db', db, '-q', '--user-agent', 'mybot/2.0']);
    expect(result.code, result.stderr).toBe(0);
    expect(new Set(agents)).toEqual(new Set(['mybot/2.0']));
    // '*' disallows everything; the mybot group only one path.
    expect(site.hitCount('/')).toBe(1);
    expect(site.hitCount('/page')).toBe(1);
    expect(site.hitCount('/not-for-mybot')).toBe(0);
    expect(urlRow(db, abs(site, '/not-for-mybot'))).toMatchObject({ state: 'skipped', error_code: 'robots' });
  });
});

describe('resume', () => {
  it('does not fetch robots.txt again when a stopped crawl is resumed', async () => {
    const pages = Array.from({ length: 6 }, (_, i) => `/p${i}`);
    const site = await servers.serve(
      routes({
        '/robots.txt': text('User-agent: *\nDisallow: /private/\n'),
        '/': html(pages.map((path) => `<a href="${path}">${path}</a>`).join('') + '<a href="/private/x">x</a>'),
        '/private/x': html('x'),
        ...Object.fromEntries(pages.map((path) => [path, html(path)])),
      }),
    );
    const db = tmp.path('resume.sqlite');
    const first = await runCli(['crawl', site.url, '--db', db, '-q', '--max-pages', '3']);
    expect(first.code, first.stderr).toBe(0);
    expect(site.hitCount('/robots.txt')).toBe(1);
    const fetchedBefore = site.totalHits();
    expect(fetchedBefore).toBe(4); // robots.txt and three pages
    const second = await runCli(['resume', db, '-q', '--max-pages', '100']);
    expect(second.code, second.stderr).toBe(0);
    expect(site.hitCount('/robots.txt')).toBe(1);
    for (const path of ['/', ...pages]) expect(site.hitCount(path), path).toBe(1);
    // The rules read from the archive still apply.
    expect(site.hitCount('/private/x')).toBe(0);
    expect(urlRow(db, abs(site, '/private/x'))).toMatchObject({ state: 'skipped', error_code: 'robots' });
  });
});
