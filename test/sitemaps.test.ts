import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, serverPool, xml, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

// A site whose orphan pages are listed only in sitemaps: robots.txt names a
// sitemap index (absolute URL) listing a plain and a gzipped sitemap, and
// /sitemap.xml at the root lists one more. A second server stands for
// another site, named in a sitemap but outside the crawl.

const tmp = tempDir();
const servers = serverPool();
let other: TestServer;

const SITEMAPS = ['/sm-index.xml', '/sitemap-a.xml', '/sitemap-b.xml.gz', '/sitemap.xml'];
const ORPHANS = ['/orphan-a1', '/orphan-a2', '/orphan-b', '/orphan-root'];
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';

const urlset = (urls: string[]) =>
  `${XML_HEAD}<urlset ${NS}>${urls.map((url) => `<url><loc>${url}</loc><changefreq>daily</changefreq></url>`).join('\n')}</urlset>`;
const sitemapIndex = (urls: string[]) =>
  `${XML_HEAD}<sitemapindex ${NS}>${urls.map((url) => `<sitemap><loc>${url}</loc></sitemap>`).join('\n')}</sitemapindex>`;

/** The site's answers depend on its own origin (sitemaps hold absolute URLs), read from the Host header. */
function site(req: IncomingMessage, res: ServerResponse, path: string) {
  const origin = `http://${req.headers.host ?? ''}`;
  const table = routes({
    '/robots.txt': {
      headers: { 'content-type': 'text/plain' },
      body: `User-agent: *\nDisallow: /private/\n\nSitemap: ${origin}/sm-index.xml\n`,
    },
    '/sm-index.xml': xml(sitemapIndex([`${origin}/sitemap-a.xml`, `${origin}/sitemap-b.xml.gz`])),
    '/sitemap-a.xml': xml(urlset([`${origin}/orphan-a1`, `${origin}/orphan-a2`, abs(other, '/outside')])),
    // A gzipped file, not a gzip Content-Encoding.
    '/sitemap-b.xml.gz': xml(gzipSync(urlset([`${origin}/orphan-b`])), 'application/x-gzip'),
    '/sitemap.xml': xml(urlset([`${origin}/orphan-root`, `${origin}/linked`])),
    '/': html('<a href="/linked">linked</a>'),
    '/linked': html('<p>linked from the home page</p>'),
    '/orphan-a1': html('<p>a1</p>'),
    '/orphan-a2': html('<p>a2</p>'),
    '/orphan-b': html('<p>b</p>'),
    '/orphan-root': html('<p>root sitemap</p>'),
  });
  return table(req, res, path);
}

const startSite = () => servers.serve(site);

beforeAll(async () => {
  other = await servers.serve(routes({ '/outside': html('<p>another site</p>') }));
});

afterAll(async () => {
  await servers.closeAll();
  tmp.cleanup();
});

const everyPathAtMostOnce = (server: TestServer) => {
  for (const [path, hits] of server.hits) expect(hits, path).toBe(1);
};

describe('--sitemaps', () => {
  let server: TestServer;
  const db = tmp.path('sitemaps.sqlite');

  beforeAll(async () => {
    server = await startSite();
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--sitemaps']);
    expect(result.code, result.stderr).toBe(0);
  });

  it('reads robots.txt Sitemap: lines, the sitemap index, a gzipped sitemap and /sitemap.xml', () => {
    for (const path of ['/robots.txt', ...SITEMAPS]) expect(server.hitCount(path), path).toBe(1);
    const rows = readArchive<{ url: string; state: string; kind: string }>(
      db,
      "SELECT url, state, kind FROM urls WHERE kind = 'sitemap' ORDER BY url",
    );
    expect(rows).toEqual(
      SITEMAPS.map((path) => ({ url: abs(server, path), state: 'done', kind: 'sitemap' })).sort((a, b) => a.url.localeCompare(b.url)),
    );
  });

  it('fetches orphan pages listed only in sitemaps, at depth 0', () => {
    for (const path of ORPHANS) {
      expect(server.hitCount(path), path).toBe(1);
      expect(readArchive(db, 'SELECT status, depth, kind FROM pages WHERE url = ?', abs(server, path)), path).toEqual([
        { status: 200, depth: 0, kind: 'page' },
      ]);
    }
    expect(server.hitCount('/')).toBe(1);
    expect(server.hitCount('/linked')).toBe(1);
    everyPathAtMostOnce(server);
  });

  it('records sitemap links from robots.txt and each sitemap to what it lists', () => {
    const rows = readArchive<{ from_url: string; to_url: string }>(db, "SELECT from_url, to_url FROM links WHERE kind = 'sitemap'");
    const edges = rows.map(
      (row) => `${new URL(row.from_url).pathname} -> ${row.to_url.startsWith(other.url) ? 'OTHER' : new URL(row.to_url).pathname}`,
    );
    expect(edges.sort()).toEqual(
      [
        '/robots.txt -> /sm-index.xml',
        '/sm-index.xml -> /sitemap-a.xml',
        '/sm-index.xml -> /sitemap-b.xml.gz',
        '/sitemap-a.xml -> /orphan-a1',
        '/sitemap-a.xml -> /orphan-a2',
        '/sitemap-a.xml -> OTHER',
        '/sitemap-b.xml.gz -> /orphan-b',
        '/sitemap.xml -> /orphan-root',
        '/sitemap.xml -> /linked',
      ].sort(),
    );
  });

  it('skips a sitemap entry on another site and never requests it', () => {
    const outside = abs(other, '/outside');
    expect(other.totalHits()).toBe(0);
    expect(readArchive(db, 'SELECT state, error FROM urls WHERE url = ?', outside)).toEqual([
      { state: 'skipped', error: expect.stringContaining('not a site') },
    ]);
    expect(readArchive(db, 'SELECT url FROM pages WHERE url = ?', outside)).toEqual([]);
  });
});

describe('without --sitemaps', () => {
  it('requests no sitemap and no orphan page', async () => {
    const server = await startSite();
    const db = tmp.path('no-sitemaps.sqlite');
    const result = await runCli(['crawl', server.url, '--db', db, '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.hitCount('/robots.txt')).toBe(1);
    expect(server.hitCount('/')).toBe(1);
    expect(server.hitCount('/linked')).toBe(1);
    for (const path of [...SITEMAPS, ...ORPHANS]) expect(server.hitCount(path), path).toBe(0);
    expect(server.totalHits()).toBe(3);
    expect(readArchive(db, "SELECT url FROM urls WHERE kind = 'sitemap'")).toEqual([]);
    expect(other.totalHits()).toBe(0);
  });
});

describe('--sitemaps with --ignore-robots', () => {
  it('does not read robots.txt but still reads /sitemap.xml', async () => {
    const server = await startSite();
    const db = tmp.path('sitemaps-no-robots.sqlite');
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--sitemaps', '--ignore-robots']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.hitCount('/robots.txt')).toBe(0);
    expect(server.hitCount('/sitemap.xml')).toBe(1);
    expect(server.hitCount('/orphan-root')).toBe(1);
    expect(readArchive(db, 'SELECT status, depth FROM pages WHERE url = ?', abs(server, '/orphan-root'))).toEqual([
      { status: 200, depth: 0 },
    ]);
    expect(readArchive(db, 'SELECT kind, state FROM urls WHERE url = ?', abs(server, '/sitemap.xml'))).toEqual([
      { kind: 'sitemap', state: 'done' },
    ]);
    // The index is named only in robots.txt, which was not read.
    for (const path of ['/sm-index.xml', '/sitemap-a.xml', '/sitemap-b.xml.gz', '/orphan-a1', '/orphan-a2', '/orphan-b']) {
      expect(server.hitCount(path), path).toBe(0);
    }
    everyPathAtMostOnce(server);
  });
});
