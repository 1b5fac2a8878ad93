import { afterAll, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, serverPool } from './support/test-server.js';

// A robots.txt that redirects to the site's home page (a site that sends every unknown path there):
// the home page is a root of the crawl, and stays one. It is crawled as a page and its links followed;
// robots.txt counts as absent.
const tmp = tempDir();
const servers = serverPool();
afterAll(async () => {
  await servers.closeAll();
  tmp.cleanup();
});

it('a robots.txt redirecting to the root leaves the root a page: it is parsed and its links fetched', async () => {
  const site = await servers.serve(
    routes({ '/robots.txt': { status: 301, headers: { location: '/' } }, '/': html('<a href="/a">a</a>'), '/a': html('a') }),
  );
  const db = tmp.path('home.sqlite');
  const result = await runCli(['crawl', site.url, '--db', db, '-q']);
  expect(result.code, result.stderr).toBe(0);
  expect(site.hitCount('/a')).toBe(1);
  const rows = readArchive<{ url: string; kind: string; state: string }>(db, 'SELECT url, kind, state FROM urls ORDER BY url');
  expect(rows.map((row) => [new URL(row.url).pathname, row.kind, row.state])).toEqual([
    ['/', 'page', 'done'],
    ['/a', 'page', 'done'],
    ['/robots.txt', 'robots', 'done'],
  ]);
});
