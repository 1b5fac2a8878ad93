import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveFacts } from '../../src/storage/reader/archive-facts.js';
import { openArchive } from '../../src/storage/reader/archive-reader.js';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { CrawliteError } from '../../src/crawlite-error.js';
import type { SearchArchive } from '../../src/serve/search-mount.js';
import { createUiHandler } from '../../src/serve/ui/ui-handler.js';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { linkedPage, pagePath } from '../support/linked-site.js';
import { get } from '../support/serve.js';
import { html, routes, serverPool, type TestServer } from '../support/test-server.js';
import { siteReplayUrl } from '../support/replay-hosts.js';

// The UI's pages over a real crawl of a local site, fetched over real HTTP.

const HOSTILE_TITLE = '<script>alert(1)</script>';
const N = 30;
const tmp = tempDir();
const servers = serverPool();
let site: TestServer;
let archive: string;
let serving: ServingArchive;
let ui: string;

const capture = (url: string) => `/capture?url=${encodeURIComponent(url)}`;

beforeAll(async () => {
  site = await servers.serve(
    routes({
      '/': html(`<a href="/hostile">h</a> <a href="/a">a</a> <a href="/missing">m</a> <a href="${pagePath(0)}">p</a>`, 'home'),
      '/a': html('plain page a', 'page a'),
      '/hostile': {
        headers: { 'content-type': 'text/html; charset=utf-8', 'x-evil': '"><script>alert(2)</script>' },
        body: `<!doctype html><html><head><title>${HOSTILE_TITLE}</title></head><body><a href="/a">a</a><script>alert(3)</script></body></html>`,
      },
      ...Object.fromEntries(Array.from({ length: N }, (_, i) => [pagePath(i), { ...html(''), body: linkedPage(i, N, pagePath) }])),
    }),
  );
  archive = tmp.path('site.sqlite');
  expect((await execCli(['crawl', site.url, '--db', archive, '-q'])).code).toBe(0);
  serving = await serveArchive({ path: archive, host: '127.0.0.1', port: 0 });
  ui = serving.uiUrl;
});

afterAll(async () => {
  await serving?.close();
  await servers.closeAll();
  tmp.cleanup();
});

describe('every UI response', () => {
  it('carries the CSP (framing only the replay origin) and nosniff, on pages, assets and 404s', async () => {
    for (const path of ['/', '/urls', '/assets/style.css', '/nothing/here']) {
      const response = await get(ui, path);
      expect(response.headers['content-security-policy'], path).toBe(
        `default-src 'self'; frame-src ${serving.replayOrigin} http://*.crawlite.localhost:${new URL(serving.replayOrigin).port}; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
      );
      expect(response.headers['x-content-type-options'], path).toBe('nosniff');
      expect(response.body, path).not.toMatch(/<script>(?!<\/script>)|<script[^>]*>[^<]+<\/script>/);
    }
  });

  it('answers 404 with a page for unknown paths, and never reads files outside its fixed map', async () => {
    for (const path of [
      '/nothing',
      '/assets/../../package.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/assets/',
      '/assets/style.css/..',
      '/..%2fpackage.json',
    ]) {
      const response = await get(ui, path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).toContain('<h1>404</h1>');
      expect(response.body, path).not.toContain('"name": "crawlite"');
    }
    const uplot = await get(ui, '/assets/uPlot.iife.min.js');
    expect(uplot.status).toBe(200);
    expect(uplot.headers['content-type']).toMatch(/^text\/javascript/);
    expect(uplot.body).toContain('uPlot');
    expect((await get(ui, '/assets/uPlot.min.css')).status).toBe(200);
    expect((await get(ui, '/assets/timeline.js')).body).toContain("fetch('/api/timeline')");
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const full = await get(ui, '/urls');
    const head = await get(ui, '/urls', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(full.body)));
    expect((await get(ui, '/nothing', { method: 'HEAD' })).status).toBe(404);
    expect((await get(ui, '/', { method: 'POST' })).status).toBe(405);
  });

  it('refuses a Host header naming another site (DNS rebinding) with 421', async () => {
    const port = new URL(ui).port;
    expect((await get(ui, '/', { host: `attacker.example:${port}` })).status).toBe(421);
    expect((await get(ui, '/', { host: `localhost:${port}` })).status).toBe(200);
  });

  it('shows a thrown error as a 500 page of one line, without a stack trace', async () => {
    const reader = openArchive(archive);
    const facts = ArchiveFacts.open(archive);
    facts.close();
    const server: Server = createServer(createUiHandler({ archive: reader, facts, replayOrigin: 'http://127.0.0.1:1', search: undefined }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, '/urls');
      expect(response.status).toBe(500);
      expect(response.body).toMatch(/<p class="error" id="error">crawlite could not show this page: [^<\n]+<\/p>/);
      expect(response.body).not.toMatch(/ at .*\.(ts|js):\d+/);
    } finally {
      server.close();
      reader.close();
    }
  });
});

describe('the overview', () => {
  it("shows the report's counts, the roots, statuses, content types and hosts, with a chart fed by /api/timeline", async () => {
    const page = await get(ui, '/');
    expect(page.status).toBe(200);
    const done = readArchive<{ n: number }>(archive, "SELECT count(*) AS n FROM urls WHERE state = 'done'")[0]!.n;
    expect(page.body).toContain(`<tr><td><a href="/urls?state=done">done</a></td><td class="num">${done}</td></tr>`);
    // /missing and the site's robots.txt.
    expect(page.body).toContain(`<a href="/urls?status=4xx">404</a></td><td class="num">2</td>`);
    expect(page.body).toContain(`<li><a href="/urls?text=${encodeURIComponent(site.url)}">${site.url}</a></li>`);
    expect(page.body).toMatch(/<td><a href="\/urls\?type=text%2Fhtml">text\/html<\/a><\/td><td class="num">\d+<\/td>/);
    expect(page.body).toContain(`<a href="/urls?host=${encodeURIComponent(site.url.replace(/\/$/, ''))}">`);
    expect(page.body).toContain('<div id="timeline"></div>');
    expect(page.body).toContain('<script src="/assets/uPlot.iife.min.js"></script>');
    const timeline = JSON.parse((await get(ui, '/api/timeline')).body) as { t: number[]; n: number[] };
    const responses = readArchive<{ n: number }>(archive, 'SELECT count(*) AS n FROM pages')[0]!.n;
    expect(timeline.n.reduce((a, b) => a + b, 0)).toBe(responses);
    expect(timeline.t.length).toBe(timeline.n.length);
  });
});

describe('the URL list', () => {
  const listed = (body: string) =>
    [...body.matchAll(/<tr><td class="url">(?:<a href="[^"]*">)?([^<]+)/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
  const nextHref = (body: string) => /<a id="next" rel="next" href="([^"]+)"/.exec(body)?.[1]?.replaceAll('&amp;', '&');

  it('pages by key: each next page starts after the last URL shown, with no duplicates and no gaps', async () => {
    const all = readArchive<{ url: string }>(archive, 'SELECT url FROM urls ORDER BY url').map((row) => row.url);
    expect(all.length).toBeGreaterThan(20);
    const seen: string[] = [];
    let path: string | undefined = '/urls?limit=7';
    for (let pages = 0; path && pages < 20; pages += 1) {
      const page = await get(ui, path);
      expect(page.status).toBe(200);
      seen.push(...listed(page.body));
      path = nextHref(page.body);
    }
    expect(seen).toEqual(all);
  });

  it('filters by status class, state, kind, host and text, and refuses bad values with 400', async () => {
    const missing = `${site.url}missing`;
    expect(listed((await get(ui, '/urls?status=4xx')).body)).toEqual([missing, `${site.url}robots.txt`]);
    expect(listed((await get(ui, '/urls?text=hostile')).body)).toEqual([`${site.url}hostile`]);
    const robots = listed((await get(ui, '/urls?kind=robots')).body);
    expect(robots).toEqual([`${site.url}robots.txt`]);
    const done = readArchive<{ url: string }>(archive, "SELECT url FROM urls WHERE state = 'done' ORDER BY url").map((row) => row.url);
    expect(listed((await get(ui, '/urls?state=done&limit=1000')).body)).toEqual(done);
    const origin = site.url.replace(/\/$/, '');
    expect(listed((await get(ui, `/urls?host=${encodeURIComponent(origin)}&limit=1000`)).body)).toHaveLength(done.length);
    expect(listed((await get(ui, `/urls?host=127.0.0.1:${site.port}&status=2xx&text=/p/&limit=1000`)).body)).toHaveLength(N);
    expect(listed((await get(ui, '/urls?host=elsewhere.example')).body)).toEqual([]);
    for (const bad of ['status=9xx', 'state=gone', 'kind=image', 'limit=0', 'limit=x']) {
      const response = await get(ui, `/urls?${bad}`);
      expect(response.status, bad).toBe(400);
      expect(response.body, bad).toMatch(/<p class="error" id="error">\w+ must be/);
    }
  });
});

describe('a capture', () => {
  it('shows status, headers, the request, links in and out, the source, a download and the replay frame', async () => {
    const url = `${site.url}a`;
    const page = await get(ui, capture(url));
    expect(page.status).toBe(200);
    expect(page.body).toContain('<span id="capture-status">200</span>');
    expect(page.body).toMatch(/<pre id="response-headers">HTTP\/1\.1 200 OK\ncontent-type: text\/html; charset=utf-8\r\n/);
    expect(page.body).toMatch(/<p>GET <code>\/a<\/code> to 127\.0\.0\.1/);
    expect(page.body).toMatch(/<pre id="request-headers">host: 127\.0\.0\.1:\d+\r\n/);
    // Linked from the home page and from the hostile page.
    expect(page.body).toContain(`<a href="${capture(site.url)}">${site.url}</a></td><td>link</td>`);
    expect(page.body).toContain(`<a href="${capture(`${site.url}hostile`)}">${site.url}hostile</a></td><td>link</td>`);
    expect(page.body).toContain('<pre id="source">&lt;!doctype html&gt;&lt;html&gt;');
    const fetchedAt = readArchive<{ fetched_at: string }>(archive, 'SELECT fetched_at FROM pages WHERE url = ?', url)[0]!.fetched_at;
    const ts = fetchedAt.replace(/\D/g, '').slice(0, 14);
    expect(page.body).toContain(
      `<iframe id="replay" src="${siteReplayUrl(serving.replayOrigin, url, ts)}" sandbox="allow-scripts allow-forms allow-same-origin"`,
    );
    // Both links open UI pages that frame the capture; neither is a replay document of its own.
    expect(page.body).toContain(
      `<a id="raw-body" href="/replay?url=${encodeURIComponent(url)}&amp;ts=${ts}&amp;raw=1" target="_blank" rel="noopener">`,
    );
    expect(page.body).toContain(
      `<a id="open-replay" href="/replay?url=${encodeURIComponent(url)}&amp;ts=${ts}" target="_blank" rel="noopener">`,
    );
    // The frame's source and the raw body are served by the replay origin.
    const replayed = await get(`${serving.replayOrigin}/`, `/${ts}/${url}`);
    expect(replayed.status).toBe(200);
    expect(replayed.body).toContain('plain page a');
    expect((await get(`${serving.replayOrigin}/`, `/${ts}id_/${url}`)).body).toBe(
      readArchive<{ body: Buffer }>(archive, 'SELECT body FROM pages WHERE url = ?', url)[0]!.body.toString(),
    );
    const home = await get(ui, capture(site.url));
    expect(home.body).toMatch(new RegExp(`<table id="links-out">.*<a href="${capture(url).replace(/[?]/g, '\\?')}">`, 's'));
    const raw = await get(ui, `/raw?url=${encodeURIComponent(url)}`);
    expect(raw.status).toBe(200);
    expect(raw.headers['content-disposition']).toBe('attachment; filename="a"');
    expect(raw.headers['content-type']).toBe('application/octet-stream');
    const stored = readArchive<{ body: Buffer }>(archive, 'SELECT body FROM pages WHERE url = ?', url)[0]!.body;
    expect(raw.body).toBe(stored.toString());
    expect(raw.headers['accept-ranges']).toBe('bytes');
    // A large download can be resumed or sampled: one byte range, and 416 past the end.
    const part = await get(ui, `/raw?url=${encodeURIComponent(url)}`, { range: 'bytes=2-5' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 2-5/${stored.length}`);
    expect(part.body).toBe(stored.subarray(2, 6).toString());
    const beyond = await get(ui, `/raw?url=${encodeURIComponent(url)}`, { range: `bytes=${stored.length + 10}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${stored.length}`);
  });

  it('escapes what the archived site sent: title, headers, source', async () => {
    const page = await get(ui, capture(`${site.url}hostile`));
    expect(page.status).toBe(200);
    expect(page.body).toContain('<strong id="capture-title">&lt;script&gt;alert(1)&lt;/script&gt;</strong>');
    expect(page.body).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt; · site.sqlite · crawlite</title>');
    expect(page.body).toContain('x-evil: &quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(page.body).toContain('&lt;script&gt;alert(3)&lt;/script&gt;');
    expect(page.body).not.toMatch(/<script>alert/);
  });

  it('answers 404 for a URL not archived and 400 without one', async () => {
    const missing = await get(ui, capture('https://never.example/'));
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('https://never.example/ is not archived');
    // Seen but skipped or failed without a response: not archived either.
    expect((await get(ui, '/raw?url=https%3A%2F%2Fnever.example%2F')).status).toBe(404);
    expect((await get(ui, '/capture')).status).toBe(400);
  });
});

describe('search', () => {
  it('finds archived text, marks the match, links the capture, and shows a malformed FTS5 query with 400', async () => {
    const page = await get(ui, '/search?q=plain');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form id="search" action="/search" method="get" role="search">');
    expect(page.body).toContain('<input name="q" type="search" value="plain"');
    expect(page.body).toContain(`<a href="${capture(`${site.url}a`)}">page a</a>`);
    expect(page.body).toMatch(/<div class="snippet">[^<]*<mark>plain<\/mark>/);
    const bad = await get(ui, `/search?q=${encodeURIComponent('"unclosed')}&mode=fts`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/<p class="error" id="search-error">bad search query &quot;\\&quot;unclosed&quot;: /);
  });
});

describe('search results', () => {
  // The search page against the search contract (searchArchive's signature), with a search that answers from a table.
  const search: SearchArchive = async (query, options) => {
    if (query === 'AND (') throw new CrawliteError('BAD_SEARCH_QUERY', 'malformed query: unbalanced parenthesis');
    return [
      {
        url: `${site.url}hostile`,
        title: HOSTILE_TITLE,
        snippet: `before ${options.markStart}<b>hit</b>${options.markEnd} after`,
        rank: -1,
        fetchedAt: '2026-01-01T00:00:00.000Z',
        status: 200,
        section: '<img src=x onerror=alert(2)> Hostile section',
      },
    ];
  };

  async function withSearch(run: (base: string) => Promise<void>): Promise<void> {
    const reader = openArchive(archive);
    const facts = ArchiveFacts.open(archive);
    const server: Server = createServer(createUiHandler({ archive: reader, facts, replayOrigin: 'http://127.0.0.1:1', search }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    } finally {
      server.close();
      reader.close();
      facts.close();
    }
  }

  it('escapes titles and snippets, marks only the matches, and links each hit to its capture', async () => {
    await withSearch(async (base) => {
      const page = await get(base, '/search?q=hit');
      expect(page.status).toBe(200);
      expect(page.body).toContain(`<a href="${capture(`${site.url}hostile`)}">&lt;script&gt;alert(1)&lt;/script&gt;</a>`);
      expect(page.body).toContain('<div class="snippet">before <mark>&lt;b&gt;hit&lt;/b&gt;</mark> after</div>');
      expect(page.body).toContain('<div class="section">§ &lt;img src=x onerror=alert(2)&gt; Hostile section</div>');
      expect(page.body).not.toMatch(/<script>alert|<b>hit|<img src=x/);
    });
  });

  it("shows a malformed query's message with status 400", async () => {
    await withSearch(async (base) => {
      const page = await get(base, `/search?q=${encodeURIComponent('AND (')}`);
      expect(page.status).toBe(400);
      expect(page.body).toContain('<p class="error" id="search-error">malformed query: unbalanced parenthesis</p>');
      expect((await get(base, '/search?q=x&offset=-1')).status).toBe(400);
    });
  });
});
