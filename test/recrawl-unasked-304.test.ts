import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { ChangingSite, type Served } from './support/changing-site.js';
import { startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

// A server that answers 304 Not Modified to requests that sent no validator (no ETag or Last-Modified was
// stored, so none is sent): such a 304 confirms nothing and holds no page. The fetch fails (unexpected_304),
// the capture an earlier crawl stored stays the page, and diff does not call it a redirect. A page stored
// with an ETag is still confirmed by the 304 to its conditional request.
const page = (title: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</body></html>`;
const NOT_MODIFIED: Served = { status: 304, body: '' };

function answer(path: string, version: number): Served | undefined {
  switch (path) {
    case '/':
      return { body: page('index', ['/a', '/b', '/etag', '/odd']) };
    case '/a':
      return version === 1 ? { body: page('a', ['/deep']) } : NOT_MODIFIED;
    case '/b':
      return version === 1 ? { body: page('b') } : NOT_MODIFIED;
    case '/etag':
      return { body: page('with an etag'), etag: '"e-1"' };
    case '/odd':
      return NOT_MODIFIED;
    case '/deep':
      return { body: page('deep') };
    default:
      return undefined;
  }
}

const site = new ChangingSite(answer);
let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
let firstRequests = 0;
type UrlRow = { state: string; error_code: string | null };
const urlRow = (path: string) => readArchive<UrlRow>(db, 'SELECT state, error_code FROM url WHERE url = ?', abs(server, path))[0];
const pageRow = (path: string) =>
  readArchive<{ status: number; crawl: number; revalidated: number; body: Buffer }>(
    db,
    'SELECT status, crawl, revalidated, body FROM pages WHERE url = ?',
    abs(server, path),
  )[0];

beforeAll(async () => {
  server = await startServer(site.handle);
  const crawled = await execCli(['crawl', server.url, '--db', db, '-q']);
  expect(crawled.code, crawled.stderr).toBe(0);
  firstRequests = site.requests.length;
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

it('a first crawl: an unasked 304 is a failed fetch, and no page', () => {
  expect(site.requests.find((seen) => seen.path === '/odd')).toEqual({ path: '/odd', status: 304 });
  expect(urlRow('/odd')).toEqual({ state: 'failed', error_code: 'unexpected_304' });
  expect(pageRow('/odd')).toBeUndefined();
});

it('a re-crawl: the capture stored before stays the page, the fetch fails, and diff calls it no redirect', async () => {
  site.version = 2;
  const recrawled = await execCli(['recrawl', db, '-q']);
  expect(recrawled.code, recrawled.stderr).toBe(0);
  const again = site.requests.slice(firstRequests);
  // Stored without validators, so asked for without them: the server's 304 was not asked for.
  expect(again.filter((seen) => seen.path === '/a' || seen.path === '/b')).toEqual([
    { path: expect.stringMatching(/^\/[ab]$/), status: 304 },
    { path: expect.stringMatching(/^\/[ab]$/), status: 304 },
  ]);
  for (const [path, title] of [
    ['/a', page('a', ['/deep'])],
    ['/b', page('b')],
  ] as const) {
    expect(pageRow(path)).toMatchObject({ status: 200, crawl: 1, revalidated: 0 });
    expect(pageRow(path)!.body.toString()).toBe(title);
    expect(urlRow(path)).toEqual({ state: 'failed', error_code: 'unexpected_304' });
  }
  // The page shown keeps the links it was stored with.
  expect(readArchive(db, 'SELECT to_url FROM links WHERE from_url = ?', abs(server, '/a'))).toEqual([{ to_url: abs(server, '/deep') }]);
  // A 304 to a conditional request still confirms its capture.
  expect(again.find((seen) => seen.path === '/etag')).toEqual({ path: '/etag', ifNoneMatch: '"e-1"', status: 304 });
  expect(pageRow('/etag')).toMatchObject({ status: 200, crawl: 2, revalidated: 1 });

  const diff = await execCli(['diff', db, '--all', '-f', 'ndjson']);
  expect(diff.code, diff.stderr).toBe(0);
  const changes = Object.fromEntries(
    diff.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { url: string; change: string; to_status: number | null })
      .map((row) => [new URL(row.url).pathname, [row.change, row.to_status]]),
  );
  // Not captured in crawl 2, as a page whose fetch failed in it: no 304 stands for the page.
  expect(changes['/a']).toEqual(['gone', null]);
  expect(changes['/b']).toEqual(['gone', null]);
  expect(changes['/etag']).toEqual(['unchanged', 200]);
  expect(Object.values(changes).filter(([change]) => change === 'redirected')).toEqual([]);
});
