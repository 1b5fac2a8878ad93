import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

// Three classic traps on one site: a calendar with endless "next month"
// links, relative links that grow the path (/a/b/a/b/...), and a page that
// links to itself with an ever longer query string.
let server: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  server = await startServer((_req, res, path) => {
    const url = new URL(path, 'http://trap');
    const page = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${body}</body></html>`);
    if (url.pathname === '/robots.txt') return void res.writeHead(404).end();
    if (url.pathname === '/')
      return page('<a href="/calendar/2020/1">calendar</a> <a href="/loop/">loop</a> <a href="/search?q=a">search</a>');
    const month = /^\/calendar\/(\d+)\/(\d+)$/.exec(url.pathname);
    if (month) {
      const [year, m] = [Number(month[1]), Number(month[2])];
      return page(`<a href="/calendar/${m === 12 ? year + 1 : year}/${m === 12 ? 1 : m + 1}">next month</a>`);
    }
    if (url.pathname.startsWith('/loop/')) return page('<a href="a/b/">deeper</a>');
    if (url.pathname === '/search') return page(`<a href="/search?q=${url.searchParams.get('q')}a">more</a>`);
    return void res.writeHead(404).end();
  });
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const skipped = (db: string, code: string) =>
  readArchive<{ url: string; error: string }>(db, "SELECT url, error FROM urls WHERE state = 'skipped' AND error LIKE ?", `%${code}%`);

describe('crawler traps', () => {
  it('ends on its own: repeated path segments and query variants are skipped, the calendar is bounded by --max-depth', async () => {
    const db = tmp.path('traps.sqlite');
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--max-per-path', '20', '--max-depth', '30']);
    expect(result.code).toBe(0);
    // /loop/a/b/a/b/a/b/ is fetched; /loop/a/b/a/b/a/b/a/b/ is not.
    expect(server.hitCount('/loop/a/b/a/b/a/b/')).toBe(1);
    expect(server.hitCount('/loop/a/b/a/b/a/b/a/b/')).toBe(0);
    expect(skipped(db, 'repeat 4 times')).toEqual([
      { url: abs(server, '/loop/a/b/a/b/a/b/a/b/'), error: expect.stringContaining('--max-path-repeats 3') },
    ]);
    // 20 variants of /search are fetched; the 21st is skipped.
    const searches = [...server.hits.keys()].filter((path) => path.startsWith('/search'));
    expect(searches).toHaveLength(20);
    expect(skipped(db, '--max-per-path')).toHaveLength(1);
    // The calendar stops at the depth limit.
    const months = [...server.hits.keys()].filter((path) => path.startsWith('/calendar/'));
    expect(months).toHaveLength(30);
  });

  it('lifts the guards with 0', async () => {
    const db = tmp.path('lifted.sqlite');
    const before = server.hitCount('/loop/a/b/a/b/a/b/a/b/');
    const result = await runCli([
      'crawl',
      server.url,
      '--db',
      db,
      '-q',
      '--max-per-path',
      '0',
      '--max-path-repeats',
      '0',
      '--max-depth',
      '25',
    ]);
    expect(result.code).toBe(0);
    expect(server.hitCount('/loop/a/b/a/b/a/b/a/b/')).toBe(before + 1);
    expect([...server.hits.keys()].filter((path) => path.startsWith('/search')).length).toBeGreaterThan(20);
  });
});
