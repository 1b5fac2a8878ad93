import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { doc, routes, startServer, type Route, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

// A page that needs every kind of requisite, a stylesheet that needs more, and a second
// server (another port, so out of scope) standing in for a CDN.

const asset = (type: string, body = 'x'): Route => ({ headers: { 'content-type': type }, body });
const css = (body: string) => asset('text/css', body);

/** Requisites of "/" itself, each written once or more on the page (depth 1). */
const ROOT_REQUISITES = [
  '/css/main.css', // <link rel=stylesheet>
  '/favicon.ico', // <link rel=icon>
  '/js/app.js', // <script src>
  '/css/inline-import.css', // @import in <style>
  '/img/style-bg.png', // url() in <style>
  '/img/a.png', // <img src>
  '/img/s1.png', // <img srcset> with x descriptors
  '/img/s2.png',
  '/img/p-small.webp', // <picture><source srcset> with w descriptors
  '/img/p-large.webp',
  '/img/p-fallback.png', // <picture><img>
  '/media/v.mp4', // <video src>
  '/img/poster.jpg', // <video poster>
  '/media/a.mp3', // <audio src>
  '/media/o.svg', // <object data>
  '/img/div-bg.png', // style="background:url(...)"
  '/fake-image.html', // <img src> that is an HTML page
];
/** Found in the stylesheets: @import, font and image of main.css (depth 2), image of imported.css (depth 3). */
const CSS_REQUISITES = ['/css/imported.css', '/fonts/f.woff2', '/img/css-bg.png', '/img/from-import.png'];
const ALL_REQUISITES = [...ROOT_REQUISITES, ...CSS_REQUISITES];
/** Requisites of the deeper pages /deep1 (depth 1) and /deep2 (depth 2). */
const DEEP_REQUISITES = ['/css/deep1.css', '/img/deep1.png', '/img/deep1-css.png', '/img/deep2.png'];

function siteRoutes(cdn: string): Record<string, Route> {
  return {
    '/': doc(
      `<link rel="stylesheet" href="/css/main.css"><link rel="icon" href="/favicon.ico">
       <script src="/js/app.js"></script>
       <style>@import "/css/inline-import.css"; body { background: url('/img/style-bg.png') }</style>`,
      `<img src="/img/a.png" alt="a"> <img src="img/a.png" alt="a again, relative">
       <img srcset="/img/s1.png 1x, /img/s2.png 2x" alt="srcset">
       <picture><source srcset="/img/p-small.webp 480w, /img/p-large.webp 1080w" sizes="50vw"><img src="/img/p-fallback.png"></picture>
       <video src="/media/v.mp4" poster="/img/poster.jpg"></video> <audio src="/media/a.mp3"></audio>
       <object data="/media/o.svg"></object>
       <div style="background:url(/img/div-bg.png)">styled</div>
       <img src="/fake-image.html">
       <iframe src="/frame.html"></iframe>
       <img src="${cdn}cdn/logo.png"> <img src="${cdn}blocked/x.png"> <a href="${cdn}page">a page on the CDN</a>
       <a href="/deep1">deeper</a>`,
    ),
    '/css/main.css': css(`@import url("/css/imported.css");
      @font-face { font-family: F; src: url(/fonts/f.woff2) format("woff2"); }
      .x { background: url("../img/css-bg.png") } .y { background: url(/img/a.png) }`),
    '/css/imported.css': css('body { background-image: url(/img/from-import.png) }'),
    '/css/inline-import.css': css('p { color: red }'),
    '/favicon.ico': asset('image/x-icon'),
    '/js/app.js': asset('text/javascript', 'console.log(1)'),
    '/img/style-bg.png': asset('image/png'),
    '/img/a.png': asset('image/png'),
    '/img/s1.png': asset('image/png'),
    '/img/s2.png': asset('image/png'),
    '/img/p-small.webp': asset('image/webp'),
    '/img/p-large.webp': asset('image/webp'),
    '/img/p-fallback.png': asset('image/png'),
    '/media/v.mp4': asset('video/mp4'),
    '/img/poster.jpg': asset('image/jpeg'),
    '/media/a.mp3': asset('audio/mpeg'),
    '/media/o.svg': asset('image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>'),
    '/img/div-bg.png': asset('image/png'),
    '/fonts/f.woff2': asset('font/woff2'),
    '/img/css-bg.png': asset('image/png'),
    '/img/from-import.png': asset('image/png'),
    // Served as HTML but reached only as an image: fetched, never parsed.
    '/fake-image.html': doc('', '<a href="/secret">secret</a> <img src="/secret.png">'),
    '/secret': doc('', 'must not be found'),
    '/secret.png': asset('image/png'),
    // An iframe is a page: parsed, its links followed.
    '/frame.html': doc('', '<a href="/from-frame">from the frame</a>'),
    '/from-frame': doc('', 'reached through the frame'),
    '/deep1': doc('<link rel="stylesheet" href="/css/deep1.css">', '<img src="/img/deep1.png"> <a href="/deep2">deeper still</a>'),
    '/css/deep1.css': css('body { background: url(/img/deep1-css.png) }'),
    '/img/deep1.png': asset('image/png'),
    '/img/deep1-css.png': asset('image/png'),
    '/deep2': doc('', '<img src="/img/deep2.png">'),
    '/img/deep2.png': asset('image/png'),
  };
}

const cdnRoutes: Record<string, Route> = {
  '/robots.txt': asset('text/plain', 'User-agent: *\nDisallow: /blocked/\n'),
  '/cdn/logo.png': asset('image/png'),
  '/blocked/x.png': asset('image/png'),
  '/page': doc('', 'a page on another site'),
};

interface Crawled {
  site: TestServer;
  cdn: TestServer;
  db: string;
  at: (path: string) => string;
  url: (path: string) => { url: string; state: string; depth: number; error: string | null; kind: string } | undefined;
}

/** Fresh servers and archive per scenario, so hit counts belong to one crawl. */
function crawlWith(name: string, flags: string[]): { get: () => Crawled } {
  const tmp = tempDir();
  let crawled: Crawled | undefined;
  beforeAll(async () => {
    const cdn = await startServer(routes(cdnRoutes));
    const site = await startServer(routes(siteRoutes(cdn.url)));
    const db = tmp.path(`${name}.sqlite`);
    crawled = {
      site,
      cdn,
      db,
      at: (path) => abs(site, path),
      url: (path) =>
        readArchive<NonNullable<ReturnType<Crawled['url']>>>(
          db,
          'SELECT * FROM urls WHERE url = ?',
          path.startsWith('http') ? path : abs(site, path),
        )[0],
    };
    const result = await runCli(['crawl', site.url, '--db', db, '-q', ...flags]);
    expect(result).toMatchObject({ code: 0 });
  });
  afterAll(async () => {
    await Promise.all([crawled?.site.close(), crawled?.cdn.close()]);
    tmp.cleanup();
  });
  return { get: () => crawled! };
}

describe('requisites, by default', () => {
  const crawl = crawlWith('default', []);

  it('fetches every requisite of the pages and of their stylesheets, each once', () => {
    const { site } = crawl.get();
    const everyOne = [...ALL_REQUISITES, ...DEEP_REQUISITES];
    expect(Object.fromEntries(everyOne.map((path) => [path, site.hitCount(path)]))).toEqual(
      Object.fromEntries(everyOne.map((path) => [path, 1])),
    );
  });

  it("stores them as urls and pages of kind 'requisite'", () => {
    const { url, db, at } = crawl.get();
    for (const path of ALL_REQUISITES) expect(url(path), path).toMatchObject({ state: 'done', kind: 'requisite' });
    const kinds = readArchive<{ url: string; kind: string; status: number }>(
      db,
      "SELECT url, kind, status FROM pages WHERE kind = 'requisite'",
    );
    expect(kinds.map((row) => row.url).sort()).toEqual([...ALL_REQUISITES, ...DEEP_REQUISITES].map(at).sort());
    expect(kinds.every((row) => row.status === 200)).toBe(true);
  });

  it("records the page's and the stylesheets' requisites as links of kind 'requisite'", () => {
    const { db, at } = crawl.get();
    const from = (path: string) =>
      readArchive<{ to_url: string; kind: string }>(
        db,
        "SELECT to_url, kind FROM links WHERE from_url = ? AND kind = 'requisite' ORDER BY to_url",
        at(path),
      );
    expect(from('/').map((link) => link.to_url)).toEqual(
      [...ROOT_REQUISITES.map(at), crawl.get().cdn.url + 'cdn/logo.png', crawl.get().cdn.url + 'blocked/x.png'].sort(),
    );
    expect(from('/css/main.css').map((link) => link.to_url)).toEqual(
      ['/css/imported.css', '/fonts/f.woff2', '/img/a.png', '/img/css-bg.png'].map(at),
    );
    expect(from('/css/imported.css').map((link) => link.to_url)).toEqual([at('/img/from-import.png')]);
  });

  it('counts a requisite one step deeper than what needs it', () => {
    const { url } = crawl.get();
    expect([url('/css/main.css')?.depth, url('/img/css-bg.png')?.depth, url('/img/from-import.png')?.depth]).toEqual([1, 2, 3]);
  });

  it("treats an iframe's document as a page: a 'link', parsed and followed", () => {
    const { url, db, at, site } = crawl.get();
    expect(url('/frame.html')).toMatchObject({ state: 'done', kind: 'page', depth: 1 });
    expect(readArchive(db, 'SELECT kind FROM links WHERE from_url = ? AND to_url = ?', at('/'), at('/frame.html'))).toEqual([
      { kind: 'link' },
    ]);
    expect(site.hitCount('/from-frame')).toBe(1);
  });

  it('fetches an HTML document used as a requisite without parsing it', () => {
    const { url, db, at, site } = crawl.get();
    expect(site.hitCount('/fake-image.html')).toBe(1);
    expect(url('/fake-image.html')).toMatchObject({ state: 'done', kind: 'requisite' });
    expect(site.hitCount('/secret')).toBe(0);
    expect(site.hitCount('/secret.png')).toBe(0);
    expect(readArchive(db, 'SELECT to_url FROM links WHERE from_url = ?', at('/fake-image.html'))).toEqual([]);
    expect(url('/secret')).toBeUndefined();
  });

  it('skips requisites on another host, without a request to it', () => {
    const { url, cdn } = crawl.get();
    expect(url(cdn.url + 'cdn/logo.png')).toMatchObject({
      state: 'skipped',
      kind: 'requisite',
      error: expect.stringContaining('not a site'),
    });
    expect(cdn.totalHits()).toBe(0);
  });
});

describe('requisites with --no-requisites', () => {
  const crawl = crawlWith('none', ['--no-requisites', '--ignore-robots']);

  it('fetches none of them', () => {
    const { site, cdn } = crawl.get();
    for (const path of [...ALL_REQUISITES, ...DEEP_REQUISITES]) expect(site.hitCount(path), path).toBe(0);
    expect(cdn.totalHits()).toBe(0);
  });

  it('marks them skipped, with the reason', () => {
    const { url } = crawl.get();
    for (const path of ROOT_REQUISITES) {
      expect(url(path), path).toMatchObject({ state: 'skipped', kind: 'requisite', error: expect.stringContaining('--no-requisites') });
    }
  });

  it('still records them as links', () => {
    const { db, at } = crawl.get();
    const links = readArchive<{ to_url: string }>(db, "SELECT to_url FROM links WHERE from_url = ? AND kind = 'requisite'", at('/'));
    expect(links.map((link) => link.to_url)).toEqual(expect.arrayContaining(ROOT_REQUISITES.map(at)));
  });

  it('still crawls pages, iframes included', () => {
    const { site } = crawl.get();
    for (const path of ['/', '/frame.html', '/from-frame', '/deep1', '/deep2']) expect(site.hitCount(path), path).toBe(1);
  });
});

describe('requisites with --requisites-any-host', () => {
  const crawl = crawlWith('any-host', ['--requisites-any-host']);

  it("fetches a requisite from another host, after that host's robots.txt", () => {
    const { cdn, url } = crawl.get();
    expect(cdn.hitCount('/robots.txt')).toBe(1);
    expect(cdn.hitCount('/cdn/logo.png')).toBe(1);
    expect(cdn.starts.get('/robots.txt')![0]!).toBeLessThan(cdn.starts.get('/cdn/logo.png')![0]!);
    expect(url(cdn.url + 'cdn/logo.png')).toMatchObject({ state: 'done', kind: 'requisite' });
  });

  it("obeys that host's robots.txt", () => {
    const { cdn } = crawl.get();
    expect(cdn.hitCount('/blocked/x.png')).toBe(0);
  });

  it('still keeps pages on another host out of scope', () => {
    const { cdn, url } = crawl.get();
    expect(cdn.hitCount('/page')).toBe(0);
    expect(url(cdn.url + 'page')).toMatchObject({ state: 'skipped', kind: 'page' });
  });

  it('fetches the in-scope requisites as before', () => {
    const { site } = crawl.get();
    for (const path of ALL_REQUISITES) expect(site.hitCount(path), path).toBe(1);
  });
});

describe('requisites with --requisites-any-host --ignore-robots', () => {
  const crawl = crawlWith('any-host-no-robots', ['--requisites-any-host', '--ignore-robots']);

  it("fetches them without asking for the other host's robots.txt", () => {
    const { cdn, site } = crawl.get();
    expect(cdn.hitCount('/robots.txt')).toBe(0);
    expect(site.hitCount('/robots.txt')).toBe(0);
    expect(cdn.hitCount('/cdn/logo.png')).toBe(1);
    expect(cdn.hitCount('/blocked/x.png')).toBe(1);
    expect(cdn.hitCount('/page')).toBe(0);
  });
});

describe('requisites with --max-depth 1', () => {
  const crawl = crawlWith('depth', ['--max-depth', '1', '--ignore-robots']);

  it('fetches the requisites of a depth-1 page, at depth 2 and beyond', () => {
    const { site, url } = crawl.get();
    expect(site.hitCount('/deep1')).toBe(1);
    for (const path of ['/img/deep1.png', '/css/deep1.css', '/img/deep1-css.png']) expect(site.hitCount(path), path).toBe(1);
    expect(url('/img/deep1.png')).toMatchObject({ state: 'done', depth: 2, kind: 'requisite' });
    expect(url('/img/deep1-css.png')).toMatchObject({ state: 'done', depth: 3, kind: 'requisite' });
  });

  it('does not fetch depth-2 pages, nor their requisites', () => {
    const { site, url } = crawl.get();
    expect(site.hitCount('/deep2')).toBe(0);
    expect(site.hitCount('/from-frame')).toBe(0);
    expect(site.hitCount('/img/deep2.png')).toBe(0);
    expect(url('/deep2')).toMatchObject({ state: 'skipped', depth: 2, error: expect.stringContaining('--max-depth 1') });
  });

  it("still fetches the root's requisites and those of its stylesheets", () => {
    const { site } = crawl.get();
    for (const path of ALL_REQUISITES) expect(site.hitCount(path), path).toBe(1);
  });
});
