import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { doc, routes, startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';
import { within } from './support/wait.js';

const refresh = (content: string) => doc(`<meta http-equiv="refresh" content="${content}">`);

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('refresh.sqlite');

const linksFrom = (path: string) =>
  readArchive<{ to_url: string; kind: string }>(db, 'SELECT to_url, kind FROM links WHERE from_url = ? ORDER BY to_url', abs(server, path));
const url = (path: string) =>
  readArchive<{ url: string; state: string; depth: number; kind: string; error: string | null }>(
    db,
    'SELECT * FROM urls WHERE url = ?',
    abs(server, path),
  )[0];

const CHAIN = Array.from({ length: 8 }, (_, i) => `/chain/${i}`);

beforeAll(async () => {
  server = await startServer(
    routes({
      '/': doc(
        '',
        ['/r0', '/r1', '/wait', '/loop-a', '/self', '/chain/0', '/with-canon', '/docs/with-canon2', '/canon-linked']
          .map((path) => `<a href="${path}">${path}</a>`)
          .join(' '),
      ),
      '/r0': refresh('0; url=/target'),
      // Another spelling of the same refresh: upper-case URL=, quotes, no space.
      '/r1': refresh("0;URL='/target'"),
      '/target': doc('', 'arrived'),
      // A plain reload after five seconds names no URL.
      '/wait': refresh('5'),
      '/loop-a': refresh('0; url=/loop-b'),
      '/loop-b': refresh('0; url=/loop-a'),
      '/self': refresh('0; url=/self'),
      ...Object.fromEntries(CHAIN.map((path, i) => [path, refresh(`0; url=/chain/${i + 1}`)])),
      '/with-canon': doc('<link rel="canonical" href="/canon">', 'a page that names its canonical'),
      '/canon': doc('', 'only named as canonical'),
      '/docs/with-canon2': doc('<link rel="canonical" href="../canon-linked">', 'relative canonical'),
      '/canon-linked': doc('', 'canonical and linked'),
    }),
  );
  // A crawl must end on its own; this fails the test long before the hook's own timeout.
  const result = await within(runCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots', '--max-redirects', '3']), 60_000, 'crawl');
  expect(result).toMatchObject({ code: 0 });
}, 90_000);

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('<meta http-equiv="refresh"> with a URL', () => {
  it("is recorded as a link of kind 'refresh'", () => {
    expect(linksFrom('/r0')).toEqual([{ to_url: abs(server, '/target'), kind: 'refresh' }]);
    expect(linksFrom('/r1')).toEqual([{ to_url: abs(server, '/target'), kind: 'refresh' }]);
  });

  it('is followed like a redirect: the target is fetched once, as a page, at the same depth', () => {
    expect(server.hitCount('/target')).toBe(1);
    expect(url('/r0')?.depth).toBe(1);
    expect(url('/target')).toMatchObject({ state: 'done', kind: 'page', depth: 1 });
    expect(readArchive(db, 'SELECT status FROM pages WHERE url = ?', abs(server, '/target'))).toEqual([{ status: 200 }]);
  });
});

describe('<meta http-equiv="refresh" content="5">', () => {
  it('is no link at all', () => {
    expect(server.hitCount('/wait')).toBe(1);
    expect(linksFrom('/wait')).toEqual([]);
  });
});

describe('refresh loops', () => {
  it('end: a → b → a fetches each page once', () => {
    expect(server.hitCount('/loop-a')).toBe(1);
    expect(server.hitCount('/loop-b')).toBe(1);
    expect(linksFrom('/loop-a')).toEqual([{ to_url: abs(server, '/loop-b'), kind: 'refresh' }]);
    expect(linksFrom('/loop-b')).toEqual([{ to_url: abs(server, '/loop-a'), kind: 'refresh' }]);
  });

  it('end: a page refreshing to itself is fetched once', () => {
    expect(server.hitCount('/self')).toBe(1);
    expect(linksFrom('/self')).toEqual([{ to_url: abs(server, '/self'), kind: 'refresh' }]);
  });

  it('share the redirect budget: a chain of refreshes stops after --max-redirects hops', () => {
    // /chain/0 is reached by a link; /chain/1..3 are its 3 refresh hops; /chain/4 would be a 4th.
    expect(CHAIN.map((path) => server.hitCount(path))).toEqual([1, 1, 1, 1, 0, 0, 0, 0]);
    expect(linksFrom('/chain/3')).toEqual([{ to_url: abs(server, '/chain/4'), kind: 'refresh' }]);
    expect(url('/chain/3')).toMatchObject({ state: 'done', depth: 1 });
  });
});

describe('<link rel="canonical">', () => {
  it("is recorded in links as 'canonical' and in pages.canonical as an absolute URL", () => {
    expect(linksFrom('/with-canon')).toEqual([{ to_url: abs(server, '/canon'), kind: 'canonical' }]);
    expect(readArchive(db, 'SELECT canonical FROM pages WHERE url = ?', abs(server, '/with-canon'))).toEqual([
      { canonical: abs(server, '/canon') },
    ]);
  });

  it('is resolved against the page when relative', () => {
    expect(linksFrom('/docs/with-canon2')).toEqual([{ to_url: abs(server, '/canon-linked'), kind: 'canonical' }]);
    expect(readArchive(db, 'SELECT canonical FROM pages WHERE url = ?', abs(server, '/docs/with-canon2'))).toEqual([
      { canonical: abs(server, '/canon-linked') },
    ]);
  });

  it('is not requested for being canonical', () => {
    expect(server.hitCount('/canon')).toBe(0);
    expect(url('/canon')).toBeUndefined();
  });

  it('is fetched, once, when it is also linked normally', () => {
    expect(server.hitCount('/canon-linked')).toBe(1);
    expect(url('/canon-linked')).toMatchObject({ state: 'done', kind: 'page' });
  });
});

describe('the whole crawl', () => {
  it('requested nothing it was not meant to', () => {
    const expected = [
      '/',
      '/r0',
      '/r1',
      '/target',
      '/wait',
      '/loop-a',
      '/loop-b',
      '/self',
      ...CHAIN.slice(0, 4),
      '/with-canon',
      '/docs/with-canon2',
      '/canon-linked',
    ];
    expect(Object.fromEntries(server.hits)).toEqual(Object.fromEntries(expected.map((path) => [path, 1])));
  });
});
