import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { tempDir } from './support/archive.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// Datasette's tools find the search index by themselves: sqlite-utils detects page_text_fts as page_text's FTS table.

const run = promisify(execFile);
const SQLITE_UTILS = ['/usr/bin/sqlite-utils', '/usr/local/bin/sqlite-utils'].find((path) => existsSync(path));
if (!SQLITE_UTILS) console.warn('search-sqlite-utils: skipping: sqlite-utils is not installed (apt-get install sqlite-utils)');

const tmp = tempDir();
let server: TestServer;

beforeAll(async () => {
  server = await startServer(
    routes({
      '/robots.txt': { status: 404 },
      '/': html('<a href="/a">a</a> <a href="/b">b</a>', 'Home'),
      '/a': html('<p>Lighthouses guide ships at night.</p>', 'Lighthouses'),
      '/b': html('<p>Nothing to see.</p>', 'Other'),
    }),
  );
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe.skipIf(!SQLITE_UTILS)('sqlite-utils search', () => {
  it('finds a crawled page through page_text_fts, stemmed', async () => {
    const db = tmp.path('site.sqlite');
    expect((await runCli(['crawl', server.url, '--db', db, '-q'])).code).toBe(0);
    const { stdout } = await run(SQLITE_UTILS!, ['search', db, 'page_text', 'lighthouse', '--csv', '-c', 'url', '-c', 'title'], {
      timeout: 20_000,
    });
    expect(stdout.trim().split(/\r?\n/)).toEqual(['url,title', `${server.url}a,Lighthouses`]);
  });
});
