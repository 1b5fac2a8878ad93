import { gzipSync } from 'node:zlib';
import { lastValueFrom, of } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import { parsePage } from '../../src/pipeline/operators/parse-page.js';
import { ParsePool } from '../../src/pipeline/parse/parse-pool.js';
import { TEXT_EXTRACTION_VERSION } from '../../src/html/index.js';

const fetched = (body: string | Buffer, contentType: string, kind: CrawlItem['claim']['kind'] = 'page', status = 200): CrawlItem => ({
  claim: {
    id: 1,
    url: 'http://site/dir/page.html',
    key: 'http://site/dir/page.html',
    origin: 'http://site',
    kind,
    depth: 1,
    redirectHops: 2,
    tries: 0,
    lease: { token: 'test', expiresAt: Infinity },
  },
  attempts: 1,
  state: 'done',
  response: { status, headers: { 'content-type': contentType }, body: Buffer.from(body), fetchedAt: '', elapsedMs: 1 },
  discovered: [],
});
const found = (out: CrawlItem) => out.discovered.map((d) => [d.kind, d.target, d.url, d.depth, d.redirectHops]);

// Every behaviour holds wherever the parsing runs: here, or on a pool's thread.
describe.each(['here', 'on a parse thread'] as const)('parsePage, parsing %s', (where) => {
  let pool: ParsePool | undefined;
  beforeAll(() => {
    if (where === 'on a parse thread') pool = new ParsePool(1);
  });
  afterAll(() => pool?.close());
  const parse = (item: CrawlItem, settings = {}) =>
    lastValueFrom(of(item).pipe(parsePage({ maxRedirects: 10, maxBodyBytes: 1 << 20, ...settings }, pool)));

  it('turns an HTML page into links one level deeper, requisites, a refresh at the same depth and a recorded canonical', async () => {
    const out = await parse(
      fetched(
        '<title> A  page </title><meta http-equiv="refresh" content="0; url=../next"><link rel="canonical" href="/canon">' +
          '<a href="../x#f">x</a> <img src="i.png"> <a href="mailto:a@b">m</a>',
        'text/html',
      ),
    );
    expect(found(out)).toEqual([
      ['refresh', 'page', 'http://site/next', 1, 3],
      ['canonical', 'page', 'http://site/canon', 2, 0],
      ['link', 'page', 'http://site/x', 2, 0],
      ['requisite', 'requisite', 'http://site/dir/i.png', 2, 0],
    ]);
    expect(out.discovered[1]!.linkOnly).toBe(true);
    expect(out.page).toEqual({
      charset: 'utf-8',
      title: 'A page',
      canonical: 'http://site/canon',
      // Both words are link text.
      text: { body: 'x m', headings: '', linkShare: 1, version: TEXT_EXTRACTION_VERSION },
    });
  });

  it('marks every link of a nofollow page, and records its meta robots', async () => {
    const out = await parse(fetched('<meta name="robots" content="nofollow, noarchive"><a href="/a">a</a><img src="/i.png">', 'text/html'));
    expect(out.discovered.map((d) => [d.url, d.nofollow ?? false])).toEqual([
      ['http://site/a', true],
      ['http://site/i.png', false],
    ]);
    expect(out.page?.robots).toEqual(['nofollow', 'noarchive']);
  });

  it('reads at most --max-links-per-page links, the first ones, and counts the references it did not read', async () => {
    const out = await parse(fetched(Array.from({ length: 50 }, (_, i) => `<a href="/l/${i}">x</a>`).join(''), 'text/html'), {
      maxLinksPerPage: 10,
    });
    expect(out.discovered.map((d) => d.url)).toEqual(Array.from({ length: 10 }, (_, i) => `http://site/l/${i}`));
    expect(out.page?.linksDropped).toBe(40);
  });

  it('counts distinct URLs against --max-links-per-page, not tags: 15,000 fragment links to 500 pages are all read', async () => {
    // 30 tags in a row per target, so the first 10,000 tags name only 334 of them.
    const tags = Array.from({ length: 15_000 }, (_, i) => `<a href="/doc/${Math.floor(i / 30)}.html#s${i}">s</a>`);
    const out = await parse(fetched(tags.join('\n'), 'text/html'), { maxLinksPerPage: 10_000 });
    expect(out.discovered.map((d) => d.url)).toEqual(Array.from({ length: 500 }, (_, i) => `http://site/doc/${i}.html`));
    expect(out.page?.linksDropped).toBeUndefined();
    const capped = await parse(fetched(tags.join('\n'), 'text/html'), { maxLinksPerPage: 100 });
    expect(capped.discovered).toHaveLength(100);
    // References after the cap to the 100 read targets are read (they add nothing); the other 400 targets' are not.
    expect(capped.page?.linksDropped).toBe(400 * 30);
  });

  it('keeps each way a URL is found once: a link and a requisite, nofollow and not', async () => {
    const out = await parse(
      fetched(
        '<a href="/x" rel="nofollow">1</a><a href="/x#a">2</a><img src="/x"><a href="/x#b" rel="nofollow">3</a><img src="/x">',
        'text/html',
      ),
      { maxLinksPerPage: 1 },
    );
    expect(out.discovered.map((d) => [d.kind, d.url, d.nofollow ?? false])).toEqual([
      ['link', 'http://site/x', true],
      ['link', 'http://site/x', false],
      ['requisite', 'http://site/x', false],
    ]);
    expect(out.page?.linksDropped).toBeUndefined();
  });

  it('does not count mailto:, javascript: or data: references past the cap', async () => {
    const out = await parse(
      fetched(
        '<a href="/a">a</a><a href="mailto:x@y">m</a><a href="javascript:void(0)">j</a><img src="data:image/png;base64,AA"><a href="/b">b</a>',
        'text/html',
      ),
      {
        maxLinksPerPage: 1,
      },
    );
    expect(out.discovered.map((d) => d.url)).toEqual(['http://site/a']);
    expect(out.page?.linksDropped).toBe(1);
  });

  it('ignores a javascript: or data: <base href>, as browsers do: links resolve against the page', async () => {
    for (const base of ['javascript:alert(1)', 'data:text/html,x', 'mailto:a@b']) {
      const out = await parse(fetched(`<base href="${base}"><a href="/abs">a</a><a href="rel">r</a>`, 'text/html'));
      expect(
        out.discovered.map((d) => d.url),
        base,
      ).toEqual(['http://site/abs', 'http://site/dir/rel']);
    }
  });

  it('resolves links before a <base> against it too, as browsers do', async () => {
    const out = await parse(fetched('<a href="early">e</a><base href="http://other/b/"><a href="late">l</a>', 'text/html'));
    expect(out.discovered.map((d) => d.url)).toEqual(['http://other/b/early', 'http://other/b/late']);
  });

  it("reads a stylesheet's url()s as requisites, whatever the URL was fetched as", async () => {
    const out = await parse(fetched('@import "b.css"; body { background: url(img/bg.png) }', 'text/css', 'requisite'));
    expect(found(out)).toEqual([
      ['requisite', 'requisite', 'http://site/dir/b.css', 2, 0],
      ['requisite', 'requisite', 'http://site/dir/img/bg.png', 2, 0],
    ]);
  });

  it('reads at most --max-links-per-page url()s of a stylesheet of 300,000, and counts the rest', async () => {
    const css = Array.from({ length: 300_000 }, (_, i) => `.c${i}{background:url(i/${i}.png)}`).join('\n');
    const out = await parse(fetched(css, 'text/css', 'requisite'), { maxLinksPerPage: 100 });
    expect(out.discovered.map((d) => d.url)).toEqual(Array.from({ length: 100 }, (_, i) => `http://site/dir/i/${i}.png`));
    expect(out.page?.linksDropped).toBe(299_900);
  });

  it('reads at most --max-pages (or --max-links-per-page) entries of a sitemap of 300,000, and counts the rest', async () => {
    const locs = Array.from({ length: 300_000 }, (_, i) => `<url><loc>http://site/s/${i}</loc></url>`).join('\n');
    const xml = `<urlset>${locs}</urlset>`;
    const out = await parse(fetched(xml, 'application/xml', 'sitemap'), { maxLinksPerPage: 10_000, maxPages: 100 });
    expect(out.discovered.map((d) => d.url)).toEqual(Array.from({ length: 100 }, (_, i) => `http://site/s/${i}`));
    expect(out.page?.linksDropped).toBe(299_900);
    const index = `<sitemapindex>${Array.from({ length: 50 }, (_, i) => `<sitemap><loc>http://site/sm/${i}.xml</loc></sitemap>`).join('')}</sitemapindex>`;
    const fromIndex = await parse(fetched(index, 'application/xml', 'sitemap'), { maxLinksPerPage: 30 });
    expect(fromIndex.discovered.map((d) => [d.target, d.url])).toEqual(
      Array.from({ length: 30 }, (_, i) => ['sitemap', `http://site/sm/${i}.xml`]),
    );
    expect(fromIndex.page?.linksDropped).toBe(20);
  });

  it('reads sitemaps, gzipped or not, as seeds at depth 0', async () => {
    const xml = '<urlset><url><loc>http://site/orphan</loc></url></urlset>';
    for (const body of [xml, gzipSync(xml)]) {
      const out = await parse(fetched(body, 'application/xml', 'sitemap'));
      expect(found(out)).toEqual([['sitemap', 'page', 'http://site/orphan', 0, 0]]);
    }
  });

  it('does not parse requisites that are HTML, other content types, or non-2xx pages', async () => {
    expect((await parse(fetched('<a href="/x">x</a>', 'text/html', 'requisite'))).discovered).toEqual([]);
    expect((await parse(fetched('<a href="/x">x</a>', 'text/plain'))).discovered).toEqual([]);
    expect((await parse(fetched('<a href="/x">x</a>', 'text/html', 'page', 404))).discovered).toEqual([]);
  });
});
