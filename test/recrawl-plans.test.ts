import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { startServer, type TestServer } from './support/test-server.js';

// One URL's latest capture (pages) and its timeline (captures) are index lookups however many captures
// the archive holds: no step of the plan scans response, capture, url, body or run.
let server: TestServer;
const tmp = tempDir();
const db = tmp.path('plans.sqlite');

beforeAll(async () => {
  let version = 1;
  server = await startServer((_req, res, path) => {
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(`<a href="/a">a</a> <a href="/b">b</a> v${version}`);
    if (path === '/a' || path === '/b') return res.writeHead(200, { 'content-type': 'text/html' }).end(`${path} v${version}`);
    return res.writeHead(404).end();
  });
  expect((await execCli(['crawl', server.url, '--db', db, '-q'])).code).toBe(0);
  version = 2;
  expect((await execCli(['recrawl', db, '-q'])).code).toBe(0);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

function plan(sql: string): string[] {
  const archive = new Database(db, { readonly: true });
  try {
    return archive
      .prepare<[string], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
      .all(`${server.url}a`)
      .map((row) => row.detail);
  } finally {
    archive.close();
  }
}

it('pages WHERE url = ? reads indexes only', () => {
  const steps = plan('SELECT * FROM pages WHERE url = ?');
  expect(steps.filter((step) => /^SCAN/.test(step))).toEqual([]);
  expect(steps.join('\n')).toMatch(/SEARCH u USING (COVERING )?INDEX .*\(url=\?\)/);
});

it('captures WHERE url = ? reads capture through capture_url', () => {
  const steps = plan('SELECT * FROM captures WHERE url = ?');
  expect(steps.filter((step) => /^SCAN/.test(step))).toEqual([]);
  expect(steps.join('\n')).toMatch(/SEARCH c USING INDEX capture_url \(url_id=\?\)/);
});
