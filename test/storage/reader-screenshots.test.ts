import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../src/storage/reader/archive-reader.js';
import { listUrls, urlListingQuery } from '../../src/storage/reader/url-listing.js';
import { screenshotType } from '../../src/storage/reader/index.js';
import { tempDir, UNDO_SCHEMA_12 } from '../support/archive.js';
import { copyArchive } from '../support/copy-archive.js';
import { runCli } from '../support/cli.js';
import { solidPng } from '../support/png.js';
import { addScreenshot } from '../support/screenshot-row.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';

// A browser crawl's screenshots, read back: the one of a capture by its URL and time, and in the
// URL list which URLs' latest capture has one; an archive from before screenshots reads as having none.

const tmp = tempDir();
const db = tmp.path('site.sqlite');
const png = solidPng(4, 3, [200, 10, 10]);
let site: TestServer;
let fetchedAt: string;
const abs = (path: string) => new URL(path, site.url).href;

beforeAll(async () => {
  site = await startServer(
    routes({ '/': html('<a href="/a">a</a> <a href="/b">b</a>', 'home'), '/a': html('a', 'A'), '/b': html('b', 'B') }),
  );
  const crawl = await runCli(['crawl', site.url, '--db', db, '-q']);
  expect(crawl.code, crawl.stderr).toBe(0);
  fetchedAt = addScreenshot(db, abs('/a'), png);
  addScreenshot(db, abs('/b'), Buffer.from('<script>alert(1)</script>'), 'text/html');
});

afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

describe('screenshots, read back', () => {
  it("gives a capture's screenshot by its URL and fetched_at, its bytes exactly and its type as stored", () => {
    const reader = openArchive(db);
    try {
      const shot = reader.screenshot(abs('/a'), fetchedAt);
      expect(shot?.type).toBe('image/png');
      expect(Buffer.compare(shot!.data, png)).toBe(0);
      expect(reader.screenshot(abs('/b'), reader.page(abs('/b'))!.fetchedAt)?.type).toBe('text/html');
      expect(reader.screenshot(abs('/a'), '2001-01-01T00:00:00.000Z')).toBeUndefined();
      expect(reader.screenshot(abs('/'), reader.page(abs('/'))!.fetchedAt)).toBeUndefined();
    } finally {
      reader.close();
    }
  });

  it('lets only image/webp, image/png and image/jpeg through as images', () => {
    expect(['image/webp', 'IMAGE/PNG ', 'image/jpeg'].map(screenshotType)).toEqual(['image/webp', 'image/png', 'image/jpeg']);
    for (const type of ['text/html', 'image/svg+xml', 'image/png; x=1', 'image/png\r\nx-a: b', '', null])
      expect(screenshotType(type), String(type)).toBeUndefined();
  });

  it("lists, for each URL, its latest capture's screenshot type, from the key alone", () => {
    const conn = new Database(db, { readonly: true });
    try {
      const rows = listUrls(conn, {}, { limit: 10 }).rows;
      expect(Object.fromEntries(rows.map((row) => [new URL(row.url).pathname, row.screenshotType]))).toEqual({
        '/': null,
        '/a': 'image/png',
        '/b': 'text/html',
        '/robots.txt': null,
      });
      const { sql, params } = urlListingQuery({}, { after: '' }, 10, 100, true);
      const plan = conn
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(params)
        .map((row) => (row as { detail: string }).detail)
        .join('\n');
      expect(plan).toMatch(/SEARCH s USING PRIMARY KEY \(url_id=\? AND fetched_at=\?\)/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    } finally {
      conn.close();
    }
  });

  it('reads an archive from before screenshots (schema 11) as having none', () => {
    const old = tmp.path('schema-11.sqlite');
    copyArchive(db, old);
    const writer = new Database(old);
    writer.exec(UNDO_SCHEMA_12);
    writer.close();
    const reader = openArchive(old);
    const conn = new Database(old, { readonly: true });
    try {
      expect(reader.screenshot(abs('/a'), fetchedAt)).toBeUndefined();
      expect(listUrls(conn, {}, { limit: 10 }).rows.map((row) => row.screenshotType)).toEqual([null, null, null, null]);
    } finally {
      conn.close();
      reader.close();
    }
  });
});
