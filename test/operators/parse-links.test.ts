import { lastValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import { extractLinks } from '../../src/pipeline/html/extract-links.js';
import { parseLinks } from '../../src/pipeline/operators/parse-links.js';

const page = (body: string, contentType = 'text/html', status = 200): CrawlItem => ({
  claim: { id: 1, url: 'http://site/dir/page.html', depth: 1, redirectHops: 2, tries: 0 },
  attempts: 1,
  state: 'done',
  response: { status, headers: { 'content-type': contentType }, body: Buffer.from(body), fetchedAt: '', elapsedMs: 1 },
  discovered: [],
});
const urls = async (item: CrawlItem) => (await lastValueFrom(of(item).pipe(parseLinks()))).discovered.map((found) => found.url);

describe('extractLinks', () => {
  it('reads the tags that link to pages, decoding entities, and the first <base>', () => {
    const found = extractLinks(`
      <BASE HREF="/one/"><base href="/two/">
      <a href="a?x=1&amp;y=2">a</a> <area href="b"> <iframe src="c"></iframe> <frame src="d">
      <link rel="next" href="e"> <link rel="stylesheet" href="s.css"> <link rel="shortcut icon" href="i.ico">
      <img src="img.png"> <script src="x.js"></script> <a>no href</a> <a href="  ">blank</a>`);
    expect(found).toEqual({ base: '/one/', hrefs: ['a?x=1&y=2', 'b', 'c', 'd', 'e'] });
  });
});

describe('parseLinks', () => {
  it('adds absolute, fragment-free http(s) links one level deeper, with a fresh redirect budget', async () => {
    const out = await lastValueFrom(of(page('<a href="../x#f">x</a> <a href="mailto:a@b">m</a> <a href="HTTPS://SITE:443/y">y</a>')).pipe(parseLinks()));
    expect(out.discovered).toEqual([
      { url: 'http://site/x', kind: 'link', depth: 2, redirectHops: 0 },
      { url: 'https://site/y', kind: 'link', depth: 2, redirectHops: 0 },
    ]);
  });

  it('resolves against <base href>', async () => {
    expect(await urls(page('<base href="http://site/base/"><a href="z">z</a>'))).toEqual(['http://site/base/z']);
  });

  it('parses application/xhtml+xml, with parameters', async () => {
    expect(await urls(page('<a href="/x">x</a>', 'application/xhtml+xml; charset=utf-8'))).toEqual(['http://site/x']);
  });

  it('does not parse other content types or non-2xx responses', async () => {
    expect(await urls(page('<a href="/x">x</a>', 'text/plain'))).toEqual([]);
    expect(await urls(page('<a href="/x">x</a>', 'text/html', 404))).toEqual([]);
  });

  it('decodes the body with the charset of its Content-Type', async () => {
    const latin1 = Buffer.from('<a href="/caf\xe9">x</a>', 'latin1');
    const item = page('');
    item.response!.body = latin1;
    item.response!.headers['content-type'] = 'text/html; charset=iso-8859-1';
    expect(await urls(item)).toEqual(['http://site/caf%C3%A9']);
  });
});
