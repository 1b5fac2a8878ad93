import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, serverPool, xml, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

// --max-links-per-page counts distinct URLs of one response, and what it cuts
// off is recorded: pages, stylesheets and sitemaps alike, through a real crawl
// into a real archive.

const tmp = tempDir();
const servers = serverPool();

afterAll(async () => {
  await servers.closeAll();
  tmp.cleanup();
});

/** A table of contents like Python's contents.html: many fragment links to few pages, 30 in a row per page. */
const TOC_TARGETS = 500;
const TOC_TAGS = 15_000;
const toc = () =>
  Array.from({ length: TOC_TAGS }, (_, i) => `<li><a href="/doc/${Math.floor(i / 30)}.html#s${i}">s${i}</a></li>`).join('\n');

const links = (db: string, from: string) =>
  readArchive<{ to_url: string; kind: string }>(db, 'SELECT to_url, kind FROM links WHERE from_url = ? ORDER BY to_url', from);
const dropped = (db: string, url: string) =>
  readArchive<{ links_dropped: number }>(db, 'SELECT links_dropped FROM pages WHERE url = ?', url)[0]?.links_dropped;

describe('the default cap on an ordinary page', () => {
  let server: TestServer;
  const db = tmp.path('default.sqlite');

  beforeAll(async () => {
    server = await servers.serve(
      routes({
        '/': html('<a href="/contents.html">contents</a> <a href="/pages/base-js">base</a>'),
        '/contents.html': html(`<ul>${toc()}</ul>`),
        '/pages/base-js': html('<base href="javascript:alert(1)"><a href="/after-base">a</a> <a href="rel">r</a> <img src="pic.png">'),
      }),
    );
    // Depth 1 keeps the 500 targets recorded but unfetched.
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--max-depth', '1', '--no-requisites']);
    expect(result.code, result.stderr).toBe(0);
  });

  it(`reads all ${TOC_TARGETS} targets of ${TOC_TAGS} fragment links, and records nothing dropped`, () => {
    const found = links(db, abs(server, '/contents.html')).map((row) => row.to_url);
    expect(found).toHaveLength(TOC_TARGETS);
    expect(new Set(found)).toEqual(new Set(Array.from({ length: TOC_TARGETS }, (_, i) => abs(server, `/doc/${i}.html`))));
    expect(dropped(db, abs(server, '/contents.html'))).toBe(0);
  });

  it('ignores <base href="javascript:..."> and resolves links against the page URL', () => {
    expect(links(db, abs(server, '/pages/base-js'))).toEqual([
      { to_url: abs(server, '/after-base'), kind: 'link' },
      { to_url: abs(server, '/pages/pic.png'), kind: 'requisite' },
      { to_url: abs(server, '/pages/rel'), kind: 'link' },
    ]);
  });

  it('stats says nothing was left unread', async () => {
    const text = await runCli(['stats', db]);
    expect(text.stdout).toMatch(/^Not read +none$/m);
    const json = await runCli(['stats', db, '--json']);
    expect(JSON.parse(json.stdout).linksDropped).toEqual({ links: 0, responses: 0 });
  });
});

describe('a page, a stylesheet and sitemaps over the cap', () => {
  let server: TestServer;
  const db = tmp.path('capped.sqlite');
  const CAP = 100;
  const MAX_PAGES = 20;
  const PAGE_LINKS = 1_000;
  const CSS_URLS = 5_000;
  const SITEMAP_LOCS = 30_000;
  const INDEX_SITEMAPS = 500;

  beforeAll(async () => {
    // Sitemaps hold absolute URLs, so the routes are built once the port is known.
    let table: ReturnType<typeof routes> | undefined;
    server = await servers.serve((req, res, path) => table!(req, res, path));
    const origin = server.url.slice(0, -1);
    table = routes({
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: `User-agent: *\nAllow: /\nSitemap: ${origin}/index.xml\n` },
      // The stylesheet first, so it is among the URLs read; then more page links than the cap.
      '/': html(
        `<link rel="stylesheet" href="/big.css">${Array.from({ length: PAGE_LINKS }, (_, i) => `<a href="/p/${i}">${i}</a>`).join(' ')}`,
      ),
      '/big.css': {
        headers: { 'content-type': 'text/css' },
        body: Array.from({ length: CSS_URLS }, (_, i) => `.c${i} { background: url(img/${i}.png) }`).join('\n'),
      },
      '/sitemap.xml': xml(
        `<urlset>${Array.from({ length: SITEMAP_LOCS }, (_, i) => `<url><loc>${origin}/s/${i}</loc></url>`).join('\n')}</urlset>`,
      ),
      '/index.xml': xml(
        `<sitemapindex>${Array.from({ length: INDEX_SITEMAPS }, (_, i) => `<sitemap><loc>${origin}/sm/${i}.xml</loc></sitemap>`).join('\n')}</sitemapindex>`,
      ),
    });
    const result = await runCli([
      'crawl',
      server.url,
      '--db',
      db,
      '-q',
      '-c',
      '1',
      '--sitemaps',
      '--max-links-per-page',
      String(CAP),
      '--max-pages',
      String(MAX_PAGES),
    ]);
    expect(result.code, result.stderr).toBe(0);
  });

  const count = (sql: string, ...params: unknown[]) => readArchive<{ n: number }>(db, sql, ...params)[0]!.n;

  it('a page: the first distinct URLs up to the cap, the rest counted in pages.links_dropped', () => {
    expect(links(db, abs(server, '/'))).toHaveLength(CAP);
    expect(count('SELECT count(*) AS n FROM urls WHERE url LIKE ?', `${abs(server, '/p/')}%`)).toBe(CAP - 1);
    // The stylesheet took one of the slots.
    expect(dropped(db, abs(server, '/'))).toBe(PAGE_LINKS + 1 - CAP);
  });

  it('a stylesheet: the same cap on its url()s', () => {
    expect(links(db, abs(server, '/big.css'))).toHaveLength(CAP);
    expect(count('SELECT count(*) AS n FROM urls WHERE url LIKE ?', `${abs(server, '/img/')}%`)).toBe(CAP);
    expect(dropped(db, abs(server, '/big.css'))).toBe(CSS_URLS - CAP);
  });

  it('a sitemap: no more entries queued than --max-pages could ever fetch', () => {
    expect(links(db, abs(server, '/sitemap.xml'))).toHaveLength(MAX_PAGES);
    expect(count('SELECT count(*) AS n FROM urls WHERE url LIKE ?', `${abs(server, '/s/')}%`)).toBe(MAX_PAGES);
    expect(dropped(db, abs(server, '/sitemap.xml'))).toBe(SITEMAP_LOCS - MAX_PAGES);
  });

  it('a sitemap index: the same bound on the sitemaps it names', () => {
    expect(links(db, abs(server, '/index.xml'))).toHaveLength(MAX_PAGES);
    expect(dropped(db, abs(server, '/index.xml'))).toBe(INDEX_SITEMAPS - MAX_PAGES);
  });

  it('the archive holds no more URLs than the caps allow', () => {
    // The root, robots.txt and the two sitemaps; what the page, the stylesheet and each sitemap were allowed to add.
    expect(count('SELECT count(*) AS n FROM urls')).toBe(4 + CAP + CAP + 2 * MAX_PAGES);
  });

  it('the fetches view shows links_dropped beside links_found', () => {
    expect(readArchive(db, 'SELECT links_found, links_dropped FROM fetches WHERE url = ?', abs(server, '/big.css'))).toEqual([
      { links_found: CAP, links_dropped: CSS_URLS - CAP },
    ]);
  });

  it('crawlite stats counts what was not read, as text and as JSON', async () => {
    const links = PAGE_LINKS + 1 - CAP + (CSS_URLS - CAP) + (SITEMAP_LOCS - MAX_PAGES) + (INDEX_SITEMAPS - MAX_PAGES);
    const [sum] = readArchive<{ links: number; responses: number }>(
      db,
      'SELECT sum(links_dropped) AS links, sum(links_dropped > 0) AS responses FROM pages',
    );
    expect(sum).toEqual({ links, responses: 4 });
    const text = await runCli(['stats', db]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(`^Not read +${links} link references on 4 pages, past --max-links-per-page \\(pages\\.links_dropped\\)$`, 'm'),
    );
    const json = await runCli(['stats', db, '--json']);
    expect(JSON.parse(json.stdout).linksDropped).toEqual({ links, responses: 4 });
  });
});

describe('robots.txt Sitemap: lines', () => {
  it('are held to the same cap, and the rest counted on the robots.txt row', async () => {
    const SITEMAPS = 40;
    const server = await servers.serve(
      routes({
        '/robots.txt': {
          headers: { 'content-type': 'text/plain' },
          body: ['User-agent: *', 'Allow: /', ...Array.from({ length: SITEMAPS }, (_, i) => `Sitemap: /maps/${i}.xml`)].join('\n'),
        },
        '/': html('home'),
      }),
    );
    const db = tmp.path('robots-sitemaps.sqlite');
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--sitemaps', '--max-links-per-page', '5']);
    expect(result.code, result.stderr).toBe(0);
    const named = readArchive<{ n: number }>(
      db,
      "SELECT count(*) AS n FROM links WHERE from_url LIKE '%/robots.txt' AND kind = 'sitemap'",
    )[0]!.n;
    expect(named).toBe(5);
    expect(dropped(db, abs(server, '/robots.txt'))).toBe(SITEMAPS - 5);
  });
});
