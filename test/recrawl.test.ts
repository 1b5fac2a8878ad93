import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { ChangingSite, type Served } from './support/changing-site.js';
import { startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

// A site crawled twice: between the crawls some pages change, some do not (with an ETag, with only a
// Last-Modified, with neither), one is removed, one now redirects, and a changed page links to a new one.
const LAST_MODIFIED = 'Tue, 03 Mar 2026 10:00:00 GMT';
const page = (title: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</body></html>`;
const INDEX = ['/changed-etag', '/changed-plain', '/same-etag', '/same-lastmod', '/same-plain', '/removed', '/moving'];

function answer(path: string, version: number): Served | undefined {
  switch (path) {
    case '/robots.txt':
      return { body: 'User-agent: *\nDisallow: /private/\n', etag: '"robots-1"' };
    case '/':
      return { body: page('index', INDEX) };
    case '/changed-etag':
      return version === 1
        ? { body: page('changed etag, first'), etag: '"ce-1"' }
        : { body: page('changed etag, second', ['/new']), etag: '"ce-2"' };
    case '/changed-plain':
      return { body: page(`changed plain ${version}`) };
    case '/same-etag':
      return { body: page('same with an etag', ['/same-plain']), etag: 'W/"same-1"' };
    case '/same-lastmod':
      return { body: page('same with last-modified'), lastModified: LAST_MODIFIED };
    case '/same-plain':
      return { body: page('same without validators') };
    case '/removed':
      return version === 1 ? { body: page('removed soon') } : undefined;
    case '/moving':
      return version === 1 ? { body: page('moving soon') } : { status: 301, body: '', location: '/same-plain' };
    case '/new':
      return { body: page('new in the second version') };
    default:
      return undefined;
  }
}

const site = new ChangingSite(answer);
let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
let firstRequests = 0;

beforeAll(async () => {
  server = await startServer(site.handle);
  const crawled = await execCli(['crawl', server.url, '--db', db, '-q']);
  expect(crawled.code, crawled.stderr).toBe(0);
  firstRequests = site.requests.length;
  site.version = 2;
  const recrawled = await execCli(['recrawl', db]);
  expect(recrawled.code, recrawled.stderr).toBe(0);
  expect(recrawled.stderr).toContain(`re-crawling ${db} (crawl 2)`);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

it('the changes view says what became of every URL', () => {
  const changes = readArchive<{ url: string; change: string; from_crawl: number; to_crawl: number }>(
    db,
    'SELECT url, change, from_crawl, to_crawl FROM changes ORDER BY url',
  );
  const expected: Record<string, string> = {
    '/': 'unchanged',
    '/robots.txt': 'unchanged',
    '/changed-etag': 'changed',
    '/changed-plain': 'changed',
    '/same-etag': 'unchanged',
    '/same-lastmod': 'unchanged',
    '/same-plain': 'unchanged',
    '/removed': 'gone',
    '/moving': 'redirected',
    '/new': 'new',
  };
  expect(Object.fromEntries(changes.map((row) => [new URL(row.url).pathname, row.change]))).toEqual(expected);
  for (const row of changes) expect([row.from_crawl, row.to_crawl]).toEqual([1, 2]);
});

it('asks conditionally for exactly the pages stored with validators, only in the re-crawl, and stores 304s as confirmations', () => {
  expect(
    site.requests.slice(0, firstRequests).filter((seen) => seen.ifNoneMatch !== undefined || seen.ifModifiedSince !== undefined),
  ).toEqual([]);
  const conditional = site.conditional();
  expect(
    Object.fromEntries(conditional.map((seen) => [seen.path, [seen.ifNoneMatch ?? null, seen.ifModifiedSince ?? null, seen.status]])),
  ).toEqual({
    '/robots.txt': ['"robots-1"', null, 304],
    '/changed-etag': ['"ce-1"', null, 200],
    '/same-etag': ['W/"same-1"', null, 304],
    '/same-lastmod': [null, LAST_MODIFIED, 304],
  });
  expect(conditional).toHaveLength(4);

  // A 304 keeps the confirmed capture's status, headers and body in pages; its wire columns are the 304's.
  const [confirmed] = readArchive<{
    status: number;
    revalidated: number;
    crawl: number;
    title: string;
    reason: string;
    raw_headers: Buffer;
    request_headers: Buffer;
    headers: string;
    body: Buffer;
  }>(
    db,
    'SELECT status, revalidated, crawl, title, reason, raw_headers, request_headers, headers, body FROM pages WHERE url = ?',
    abs(server, '/same-etag'),
  );
  expect(confirmed).toMatchObject({ status: 200, revalidated: 1, crawl: 2, title: 'same with an etag', reason: 'Not Modified' });
  expect(JSON.parse(confirmed!.headers)).toMatchObject({ etag: 'W/"same-1"' });
  expect(confirmed!.body.toString()).toBe(page('same with an etag', ['/same-plain']));
  expect(confirmed!.request_headers.toString().toLowerCase()).toContain('if-none-match: w/"same-1"');
  // Its links and its text stand.
  const links = readArchive<{ to_url: string }>(db, 'SELECT to_url FROM links WHERE from_url = ?', abs(server, '/same-etag'));
  expect(links.map((row) => row.to_url)).toEqual([abs(server, '/same-plain')]);
  const text = readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM page_text WHERE url = ?', abs(server, '/same-etag'));
  expect(text).toEqual([{ n: 1 }]);
});

it('stores every body once, a 304 none', () => {
  const [bodies] = readArchive<{ rows: number; hashes: number; bytes: number }>(
    db,
    'SELECT count(*) AS rows, count(DISTINCT hash) AS hashes, sum(size) AS bytes FROM body',
  );
  expect(bodies!.rows).toBe(bodies!.hashes);
  expect(bodies!.rows).toBe(site.bodies.size);
  expect(bodies!.bytes).toBe([...site.bodies].reduce((sum, body) => sum + Buffer.byteLength(body), 0));
});

it('pages holds the latest capture; captures holds both crawls of every revisited URL', () => {
  const latest = readArchive<{ url: string; crawl: number; sha256: string; fetched_at: string }>(
    db,
    'SELECT url, crawl, sha256, fetched_at FROM pages',
  );
  const captures = readArchive<{ url: string; crawl: number; sha256: string; fetched_at: string; latest: number }>(
    db,
    'SELECT url, crawl, sha256, fetched_at, latest FROM captures ORDER BY url, fetched_at',
  );
  for (const row of latest) {
    const last = captures.filter((capture) => capture.url === row.url).at(-1)!;
    expect(last).toEqual({ ...row, latest: 1 });
    expect(row.crawl).toBe(2);
  }
  const perUrl = new Map<string, number[]>();
  for (const capture of captures)
    perUrl.set(new URL(capture.url).pathname, [...(perUrl.get(new URL(capture.url).pathname) ?? []), capture.crawl]);
  expect(Object.fromEntries(perUrl)).toEqual({
    '/': [1, 2],
    '/robots.txt': [1, 2],
    '/changed-etag': [1, 2],
    '/changed-plain': [1, 2],
    '/same-etag': [1, 2],
    '/same-lastmod': [1, 2],
    '/same-plain': [1, 2],
    '/removed': [1, 2],
    '/moving': [1, 2],
    '/new': [2],
  });
  const runs = readArchive<{ crawl: number; ended_by: string }>(db, 'SELECT crawl, ended_by FROM run ORDER BY id');
  expect(runs).toEqual([
    { crawl: 1, ended_by: 'finished' },
    { crawl: 2, ended_by: 'finished' },
  ]);
});
