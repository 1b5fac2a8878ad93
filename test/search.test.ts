import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../src/index.js';
import { searchArchive, type SearchHit, type SearchMode } from '../src/storage/query/search-archive.js';
import { execCli, runCli } from './support/cli.js';
import { readArchive, tempDir } from './support/archive.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// A crawl keeps each page's visible text, and `crawlite search` / searchArchive find pages by it.

/** 中文搜索 in GBK, written by hand: TextEncoder only writes UTF-8. */
const GBK_WORDS = Buffer.from([0xd6, 0xd0, 0xce, 0xc4, 0xcb, 0xd1, 0xcb, 0xf7]);
const GBK_PAGE = Buffer.concat([
  Buffer.from('<!doctype html><html><head><title>gbk</title></head><body><p>'),
  GBK_WORDS,
  Buffer.from('</p></body></html>'),
]);

const PAGES: Record<string, string> = {
  '/stem': html(
    '<p>We crawl the web.</p><script>var scriptonlyword = 1</script><style>.styleonlyword { color: red }</style>' +
      '<!-- commentonlyword --><noscript>noscriptonlyword</noscript><p>Sp<b>li</b>ced</p><div>left</div><div>right</div>',
    'Spiders',
  ).body as string,
  '/title': html('<p>nothing of note</p>', 'Zebra facts').body as string,
  '/body': html('<p>among many other words a zebra appears once here in the body text of this page</p>', 'Misc').body as string,
  '/quick': html('<p>the quick brown fox jumps over aardvarks</p>', 'Fox').body as string,
  '/other': html('<p>brown and quick the fox sleeps with a platypus</p>', 'Other fox').body as string,
};

const tmp = tempDir();
const db = tmp.path('site.sqlite');
let server: TestServer;

beforeAll(async () => {
  const table: Parameters<typeof routes>[0] = {
    '/robots.txt': { status: 404 },
    '/': html(
      Object.keys(PAGES)
        .concat('/gbk')
        .map((path) => `<a href="${path}">${path}</a>`)
        .join(' '),
      'Home',
    ),
    '/gbk': { headers: { 'content-type': 'text/html; charset=gbk' }, body: GBK_PAGE },
  };
  for (const [path, body] of Object.entries(PAGES)) table[path] = { headers: { 'content-type': 'text/html; charset=utf-8' }, body };
  server = await startServer(routes(table));
  const crawl = await runCli(['crawl', server.url, '--db', db, '-q']);
  expect(crawl.stderr).toBe('');
  expect(crawl.code).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

/** As typed, or with mode 'fts' in FTS5's syntax. */
function search(query: string, limit = 10, mode: SearchMode = 'typed'): SearchHit[] {
  const archive = new Database(db, { readonly: true });
  try {
    return searchArchive(archive, query, { limit, mode });
  } finally {
    archive.close();
  }
}

const paths = (hits: SearchHit[]) => hits.map((hit) => new URL(hit.url).pathname).sort();

describe('full-text search', () => {
  it('finds a page by a stemmed word: crawling finds crawl', () => {
    const [hit, ...rest] = search('crawling');
    expect(rest).toEqual([]);
    expect(hit).toMatchObject({ url: `${server.url}stem`, title: 'Spiders', status: 200 });
    expect(hit!.snippet).toContain('[crawl]');
    expect(hit!.fetchedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(typeof hit!.rank).toBe('number');
  });

  it('indexes neither script, style, comment nor noscript text; inline markup keeps a word whole, blocks separate words', () => {
    for (const word of ['scriptonlyword', 'styleonlyword', 'commentonlyword', 'noscriptonlyword']) expect(search(word), word).toEqual([]);
    expect(paths(search('spliced'))).toEqual(['/stem']);
    expect(paths(search('"left right"'))).toEqual(['/stem']);
    const [row] = readArchive<{ body: string }>(db, "SELECT body FROM page_text WHERE url LIKE '%/stem'");
    expect(row!.body).toBe('We crawl the web. Spliced left right');
  });

  it('ranks a title match above a body-only match', () => {
    expect(search('zebra').map((hit) => new URL(hit.url).pathname)).toEqual(['/title', '/body']);
  });

  it('finds a page served as GBK by a 3-character Chinese substring, through the trigram index', () => {
    const hits = search('文搜索');
    expect(paths(hits)).toEqual(['/gbk']);
    expect(hits[0]!.snippet).toContain('[文搜索]');
  });

  it('takes FTS5 phrase, OR, NOT and prefix queries in mode fts', () => {
    const fts = (query: string) => paths(search(query, 10, 'fts'));
    expect(fts('"quick brown"')).toEqual(['/quick']);
    expect(fts('aardvark OR platypus')).toEqual(['/other', '/quick']);
    expect(fts('fox NOT jumps')).toEqual(['/other']);
    expect(fts('platyp*')).toEqual(['/other']);
  });

  it('finds nothing for a CJK query under 3 characters, and pages with limit and offset', () => {
    expect(paths(search('文搜'))).toEqual([]);
    const all = search('fox', 10);
    expect(all).toHaveLength(2);
    expect(searchArchive(new Database(db, { readonly: true }), 'fox', { limit: 1, offset: 1 })).toEqual([all[1]]);
  });

  it('throws a SearchQueryError with code BAD_SEARCH_QUERY for a malformed query in mode fts', () => {
    for (const query of ['"unclosed', 'fox AND', 'nosuchcolumn:fox', '(']) {
      expect(() => search(query, 10, 'fts'), query).toThrow(
        expect.objectContaining({ code: 'BAD_SEARCH_QUERY', name: 'SearchQueryError' }),
      );
    }
  });

  it('is offered by the library reader', () => {
    const archive = openArchive(db);
    try {
      expect(archive.search('crawling', { limit: 5, markStart: '<b>', markEnd: '</b>' })[0]!.snippet).toContain('<b>crawl</b>');
    } finally {
      archive.close();
    }
  });

  it('crawlite search prints url, title and the snippet with the terms marked, in every format', async () => {
    const table = await runCli(['search', db, 'crawling']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^url +title +snippet\n/);
    expect(table.stdout).toContain('[crawl]');
    const json = await runCli(['search', db, 'zebra', '--format', 'json', '--limit', '1']);
    expect(JSON.parse(json.stdout)).toEqual([{ url: `${server.url}title`, title: 'Zebra facts', snippet: '[Zebra] facts' }]);
    const csv = await runCli(['search', db, 'zebra', '-f', 'csv']);
    expect(csv.stdout.split('\r\n')[0]).toBe('url,title,snippet');
  });

  it('crawlite search --fts with a malformed query: one line on stderr, exit 1', async () => {
    const bad = await execCli(['search', db, '--fts', '"unclosed']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^crawlite: bad search query "\\"unclosed": .+\n$/);
  });
});
