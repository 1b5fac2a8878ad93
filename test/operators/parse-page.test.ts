import { gzipSync } from 'node:zlib';
import { lastValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import { parsePage } from '../../src/pipeline/operators/parse-page.js';

const fetched = (body: string | Buffer, contentType: string, kind: CrawlItem['claim']['kind'] = 'page', status = 200): CrawlItem => ({
  claim: { id: 1, url: 'http://site/dir/page.html', key: 'http://site/dir/page.html', origin: 'http://site', kind, depth: 1, redirectHops: 2, tries: 0 },
  attempts: 1,
  state: 'done',
  response: { status, headers: { 'content-type': contentType }, body: Buffer.from(body), fetchedAt: '', elapsedMs: 1 },
  discovered: [],
});
const parse = (item: CrawlItem, settings = {}) => lastValueFrom(of(item).pipe(parsePage({ maxRedirects: 10, maxBodyBytes: 1 << 20, ...settings })));
const found = (out: CrawlItem) => out.discovered.map((d) => [d.kind, d.target, d.url, d.depth, d.redirectHops]);

describe('parsePage', () => {
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
    expect(out.page).toEqual({ charset: 'utf-8', title: 'A page', canonical: 'http://site/canon' });
  });

  it('marks every link of a nofollow page, and records its meta robots', async () => {
    const out = await parse(fetched('<meta name="robots" content="nofollow, noarchive"><a href="/a">a</a><img src="/i.png">', 'text/html'));
    expect(out.discovered.map((d) => [d.url, d.nofollow ?? false])).toEqual([
      ['http://site/a', true],
      ['http://site/i.png', false],
    ]);
    expect(out.page?.robots).toEqual(['nofollow', 'noarchive']);
  });

  it('reads at most --max-links-per-page links, the first ones', async () => {
    const out = await parse(fetched(Array.from({ length: 50 }, (_, i) => `<a href="/l/${i}">x</a>`).join(''), 'text/html'), { maxLinksPerPage: 10 });
    expect(out.discovered.map((d) => d.url)).toEqual(Array.from({ length: 10 }, (_, i) => `http://site/l/${i}`));
  });

  it("reads a stylesheet's url()s as requisites, whatever the URL was fetched as", async () => {
    const out = await parse(fetched('@import "b.css"; body { background: url(img/bg.png) }', 'text/css', 'requisite'));
    expect(found(out)).toEqual([
      ['requisite', 'requisite', 'http://site/dir/b.css', 2, 0],
      ['requisite', 'requisite', 'http://site/dir/img/bg.png', 2, 0],
    ]);
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
