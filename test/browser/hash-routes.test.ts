import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { startHashRouteSite, type HashRouteSite } from '../support/hash-route-site.js';

noticeIfNoBrowser('browser/hash-routes');

// In crawl --browser a hash route (`#/b`, or `#Alpha` of a page whose script shows another text there)
// is a page of its own: rendered at its fragment, its text, its screenshot. A plain crawl cuts fragments off.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.hash;
};
const textOf = (db: string, url: string) => readArchive<{ body: string }>(db, 'SELECT body FROM page_text WHERE url = ?', url)[0]?.body;

describe.skipIf(!HAS_CHROMIUM)('hash routes in crawl --browser', () => {
  let site: HashRouteSite;
  const rendered = tmp.path('rendered.sqlite');
  const plain = tmp.path('plain.sqlite');
  let renderedHits: Map<string, number>;
  beforeAll(async () => {
    site = await startHashRouteSite();
    const crawl = await runCli(['crawl', site.url, '--db', rendered, '--browser', '-q']);
    expect(crawl.stderr).toBe('');
    expect(crawl.code).toBe(0);
    renderedHits = new Map(site.hits);
    const again = await runCli(['crawl', site.url, '--db', plain, '-q']);
    expect(again.code, again.stderr).toBe(0);
  }, 180_000);
  afterAll(() => site?.close());

  const pages = (db: string) =>
    readArchive<{ url: string }>(db, "SELECT url FROM url WHERE kind = 'page' AND state = 'done' ORDER BY url").map((row) =>
      pathOf(row.url),
    );

  it('each route is a page; a plain in-page anchor is not, nor the bare #/ (the home the document shows)', () => {
    expect(pages(rendered)).toEqual(['/', '/#/a', '/#/b', '/#/b/c', '/plain.html', '/wiki.html', '/wiki.html#Alpha', '/wiki.html#Beta']);
  });

  it("each route's page has the text its route shows, and no other route's", () => {
    const b = textOf(rendered, `${site.url}#/b`);
    expect(b).toContain(site.word['/b']);
    expect(textOf(rendered, site.url)).toContain(site.word['/']);
    expect(textOf(rendered, site.url)).not.toContain(site.word['/b']);
    expect(textOf(rendered, `${site.url}#/b/c`)).toContain(site.word['/b/c']);
    expect(textOf(rendered, `${site.url}wiki.html#Beta`)).toContain(site.word.Beta);
    expect(textOf(rendered, `${site.url}wiki.html`)).not.toContain(site.word.Beta);
  });

  it('each route has its own screenshot, taken at its route', () => {
    const shots = readArchive<{ url: string; data: Buffer }>(rendered, 'SELECT url, data FROM screenshots ORDER BY url');
    expect(shots.map((shot) => pathOf(shot.url))).toEqual([
      '/',
      '/#/a',
      '/#/b',
      '/#/b/c',
      '/plain.html',
      '/wiki.html',
      '/wiki.html#Alpha',
      '/wiki.html#Beta',
    ]);
    const shot = (path: string) => shots.find((row) => pathOf(row.url) === path)!.data;
    expect(shot('/#/b').equals(shot('/'))).toBe(false);
    expect(shot('/#/b').equals(shot('/#/a'))).toBe(false);
  });

  it('search finds a route by the words only it shows', async () => {
    const found = await runCli(['search', rendered, site.word['/b/c']!]);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain(`${site.url}#/b/c`);
    const tiddler = await runCli(['search', rendered, site.word.Alpha!]);
    expect(tiddler.stdout).toContain(`${site.url}wiki.html#Alpha`);
  });

  it('the document is fetched once for all its routes; what each route loads is fetched by its render', () => {
    expect(renderedHits.get('/')).toBe(1);
    expect(renderedHits.get('/wiki.html')).toBe(1);
    expect(renderedHits.get('/content/b.json')).toBeGreaterThanOrEqual(1);
    expect(renderedHits.get('/content/b/c.json')).toBeGreaterThanOrEqual(1);
  });

  it('a plain crawl still cuts fragments off', () => {
    expect(pages(plain)).toEqual(['/', '/plain.html', '/wiki.html']);
    expect(readArchive(plain, "SELECT url FROM url WHERE url LIKE '%#%'")).toEqual([]);
  });

  it('a root with a fragment is that route', async () => {
    const db = tmp.path('root.sqlite');
    const crawl = await runCli(['crawl', `${site.url}#/b/c`, '--db', db, '--browser', '--max-depth', '0', '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
    expect(pages(db)).toEqual(['/#/b/c']);
    expect(textOf(db, `${site.url}#/b/c`)).toContain(site.word['/b/c']);
  }, 60_000);
});
