import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

// One document spelled three ways: as an IRI, with lower-case escapes, with upper-case escapes.
// The order is fixed by the link chain: "/" is the only page that can commit first, and it
// links the lower-case spelling; "/second" and "/third" are only found through it.
const LOWER = '/%e6%96%87%e6%a1%a3/';
const UPPER = '/%E6%96%87%E6%A1%A3/';

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('iri.sqlite');

interface PageRow {
  url: string;
  fetch_url: string;
  status: number;
}

const pagesLike = (pattern: string) =>
  readArchive<PageRow>(db, 'SELECT url, fetch_url, status FROM pages WHERE url LIKE ? ORDER BY url', abs(server, pattern));

beforeAll(async () => {
  server = await startServer(
    routes({
      '/': html(
        `<a href="${LOWER}">lower</a> <a href="/a%7Eb">escaped tilde</a> <a href="/a%2Fb">escaped slash</a> <a href="/second">next</a>`,
      ),
      '/second': html('<a href="/文档/">IRI</a> <a href="/a~b">tilde</a> <a href="/a/b">slash</a> <a href="/third">next</a>'),
      '/third': html(
        `<a href="${UPPER}">upper</a> <a href="/a%7eb">lower-case escaped tilde</a> <a href="/a%2fb">lower-case escaped slash</a>`,
      ),
      [LOWER]: html('documents'),
      [UPPER]: html('documents'),
      '/a%7Eb': html('tilde'),
      '/a%7eb': html('tilde'),
      '/a~b': html('tilde'),
      '/a%2Fb': html('escaped slash'),
      '/a%2fb': html('escaped slash'),
      '/a/b': html('two segments'),
    }),
  );
  const result = await runCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots']);
  expect(result).toMatchObject({ code: 0 });
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('one page spelled as an IRI and with lower- and upper-case escapes', () => {
  it('is one row in pages, keyed with upper-case hex, fetched as first spelled', () => {
    expect(pagesLike('/%E6%96%87%E6%A1%A3/')).toEqual([{ url: abs(server, UPPER), fetch_url: abs(server, LOWER), status: 200 }]);
  });

  it('has fetch_url equal to url when the page spelled the URL as its key', () => {
    expect(pagesLike('/second')).toEqual([{ url: abs(server, '/second'), fetch_url: abs(server, '/second'), status: 200 }]);
    // An IRI is percent-encoded with upper-case hex by WHATWG parsing: that spelling is its key already.
    const same = readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE fetch_url = url AND kind = 'page'")[0]!.n;
    const differs = readArchive<{ fetch_url: string }>(db, 'SELECT fetch_url FROM pages WHERE fetch_url != url ORDER BY fetch_url');
    expect(differs.map((row) => new URL(row.fetch_url).pathname)).toEqual([LOWER, '/a%7Eb']);
    expect(same).toBeGreaterThan(0);
  });

  it('is one row in urls', () => {
    const rows = readArchive<{ url: string; state: string; kind: string }>(db, 'SELECT url, state, kind FROM urls');
    const spellings = rows.filter((row) => decodeURI(new URL(row.url).pathname) === '/文档/');
    expect(spellings).toEqual([{ url: abs(server, UPPER), state: 'done', kind: 'page' }]);
  });

  it('is requested once in all, with the spelling of the first link', () => {
    expect(server.hitCount(LOWER)).toBe(1);
    expect(server.hitCount(UPPER)).toBe(0);
    expect(server.hitCount(LOWER) + server.hitCount(UPPER) + server.hitCount('/文档/')).toBe(1);
  });

  it('is the target of all three links, by its key', () => {
    const links = readArchive<{ from_url: string; kind: string }>(
      db,
      'SELECT from_url, kind FROM links WHERE to_url = ? ORDER BY from_url',
      abs(server, UPPER),
    );
    expect(links).toEqual([
      { from_url: abs(server, '/'), kind: 'link' },
      { from_url: abs(server, '/second'), kind: 'link' },
      { from_url: abs(server, '/third'), kind: 'link' },
    ]);
  });
});

describe('an escaped unreserved character', () => {
  it('is the same page as the character itself: /a%7Eb, /a~b and /a%7eb are one', () => {
    const rows = readArchive<PageRow>(
      db,
      "SELECT url, fetch_url, status FROM pages WHERE url LIKE '%/a~b' OR url LIKE '%/a\\%7%' ESCAPE '\\'",
    );
    expect(rows).toEqual([{ url: abs(server, '/a~b'), fetch_url: abs(server, '/a%7Eb'), status: 200 }]);
    expect([server.hitCount('/a%7Eb'), server.hitCount('/a~b'), server.hitCount('/a%7eb')]).toEqual([1, 0, 0]);
  });
});

describe('an escaped slash', () => {
  it('is not a path separator: /a%2Fb and /a/b are two pages, each fetched once', () => {
    const rows = readArchive<PageRow>(
      db,
      "SELECT url, fetch_url, status FROM pages WHERE url LIKE '%/a/b' OR url LIKE '%/a\\%2%' ESCAPE '\\' ORDER BY url",
    );
    expect(rows).toEqual([
      { url: abs(server, '/a%2Fb'), fetch_url: abs(server, '/a%2Fb'), status: 200 },
      { url: abs(server, '/a/b'), fetch_url: abs(server, '/a/b'), status: 200 },
    ]);
    expect(server.hitCount('/a%2Fb')).toBe(1);
    expect(server.hitCount('/a%2fb')).toBe(0);
    expect(server.hitCount('/a/b')).toBe(1);
  });
});

describe('the whole crawl', () => {
  it('fetches every distinct page once and nothing else', () => {
    expect(Object.fromEntries(server.hits)).toEqual({
      '/': 1,
      '/second': 1,
      '/third': 1,
      [LOWER]: 1,
      '/a%7Eb': 1,
      '/a%2Fb': 1,
      '/a/b': 1,
    });
  });
});
