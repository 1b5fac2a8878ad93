import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

// A small site whose links are spelled in every way a page spells them:
// relative, absolute, with fragments, duplicated, with entities, through <base>.
let server: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  server = await startServer((req, res, path) => {
    const origin = server.url.slice(0, -1);
    return routes({
      '/': html(`
        <a href="a">A</a> <a href="./a#top">A again</a> <a href="${origin}/b">B absolute</a>
        <a href="HTTP://127.0.0.1:${server.port}/c">C with an upper-case scheme</a>
        <a href="/d?x=1&amp;y=2">D with an entity</a> <a href="/a">A a third time</a>
        <a href="mailto:someone@example.com">mail</a> <a href="javascript:void(0)">js</a>
        <a href="tel:+123">tel</a> <a href="data:text/html,hi">data</a>
        <link rel="stylesheet" href="/style.css"> <link rel="alternate" href="/feed">
        <iframe src="/frame"></iframe> <map><area href="/area"></map>`),
      '/a': html('<a href="/">home</a> <a href="sub/e">E</a>'),
      '/b': html('<a href="#only-a-fragment">self</a>'),
      '/c': html('no links'),
      '/d?x=1&y=2': html('<a href="/a">A</a>'),
      '/sub/e': html('<base href="/base/"><a href="f">F through base</a>'),
      '/base/f': html('end'),
      '/feed': { headers: { 'content-type': 'application/rss+xml' }, body: '<rss><a href="/not-parsed">x</a></rss>' },
      '/frame': html('framed'),
      '/area': html('area'),
      '/style.css': { headers: { 'content-type': 'text/css' }, body: 'body{}' },
    })(req, res, path);
  });
  const result = await runCli(['crawl', server.url, '--db', tmp.path('graph.sqlite'), '-q']);
  expect(result).toMatchObject({ code: 0, stderr: '' });
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('the link graph of a small site', () => {
  const expected = ['/', '/a', '/b', '/c', '/d?x=1&y=2', '/sub/e', '/base/f', '/feed', '/frame', '/area'];

  const kinds = () =>
    readArchive<{ url: string; kind: string }>(tmp.path('graph.sqlite'), 'SELECT url, kind FROM pages ORDER BY url').map((page) => [
      new URL(page.url).pathname + new URL(page.url).search,
      page.kind,
    ]);

  it('archives every reachable page, and nothing else', () => {
    const pages = kinds().filter(([, kind]) => kind === 'page');
    expect(pages.map(([path]) => path).sort()).toEqual([...expected].sort());
  });

  it('archives robots.txt and the stylesheet too, as what they are', () => {
    expect(kinds().filter(([, kind]) => kind !== 'page')).toEqual([
      ['/robots.txt', 'robots'],
      ['/style.css', 'requisite'],
    ]);
  });

  it('fetches each page exactly once, whatever the spelling of its links', () => {
    for (const path of [...expected, '/robots.txt', '/style.css']) expect(server.hitCount(path), path).toBe(1);
    expect(server.totalHits()).toBe(expected.length + 2);
  });

  it('does not fetch non-http links or links of pages that are not HTML', () => {
    expect(server.hitCount('/not-parsed')).toBe(0);
    const urls = readArchive<{ url: string }>(tmp.path('graph.sqlite'), 'SELECT url FROM urls');
    expect(urls.some((row) => /^(mailto|javascript|tel|data):/.test(row.url))).toBe(false);
  });

  it('records the links of a page absolute, normalised, without fragments, each pair once', () => {
    const root = server.url;
    const links = readArchive<{ to_url: string; kind: string }>(
      tmp.path('graph.sqlite'),
      'SELECT to_url, kind FROM links WHERE from_url = ? ORDER BY to_url',
      root,
    );
    expect(links.map((link) => [link.to_url, link.kind])).toEqual(
      ['/a', '/area', '/b', '/c', '/d?x=1&y=2', '/feed', '/frame', '/style.css']
        .map((path) => [new URL(path, root).href, path === '/style.css' ? 'requisite' : 'link'])
        .sort(),
    );
  });

  it('resolves links against <base href>', () => {
    const links = readArchive<{ to_url: string }>(
      tmp.path('graph.sqlite'),
      'SELECT to_url FROM links WHERE from_url = ?',
      abs(server, '/sub/e'),
    );
    expect(links).toEqual([{ to_url: abs(server, '/base/f') }]);
  });

  it('stores depth as the link distance from the root', () => {
    const depth = (path: string) =>
      readArchive<{ depth: number }>(tmp.path('graph.sqlite'), 'SELECT depth FROM pages WHERE url = ?', abs(server, path))[0]?.depth;
    expect([depth('/'), depth('/a'), depth('/sub/e'), depth('/base/f')]).toEqual([0, 1, 2, 3]);
  });
});
