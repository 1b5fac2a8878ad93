import type Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeArchive, openArchive } from '../../src/storage/archive/open-archive.js';
import { searchArchive } from '../../src/storage/query/search-archive.js';
import { convertPageText, pageTextLayout } from '../../src/storage/writer/convert-page-text.js';
import { tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { html, startServer, type TestServer } from '../support/test-server.js';

// A merge into an archive whose page_text is compact: the newer captures' text replaces the old in the
// view and in both search indexes, and the text stays compressed.

const tmp = tempDir();
const out = tmp.path('out.sqlite');
let server: TestServer;
let version = 1;
const PAGES = ['/', '/a', '/b', '/zh'];

beforeAll(async () => {
  server = await startServer((_req, res, path) => {
    if (path === '/robots.txt') return res.writeHead(404).end();
    if (!PAGES.includes(path)) return res.writeHead(404).end('not found');
    const links = PAGES.map((page) => `<a href="${page}">${page}</a>`).join(' ');
    const words = version === 1 ? 'anchorage mooring '.repeat(80) : 'lighthouse beacon '.repeat(80);
    const cjk = path === '/zh' ? (version === 1 ? '旧的港口文字' : '新的灯塔文字').repeat(20) : '';
    const page = html(`<p>${words} ${cjk} ${links}</p>`, `Page ${path} v${version}`);
    return res.writeHead(200, { 'content-type': 'text/html' }).end(page.body);
  });
}, 30_000);

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

async function cli(...args: string[]) {
  const run = await execCli(args);
  expect(run.code, run.stderr).toBe(0);
}

it('merges newer captures into a compact page_text: the text replaced in the view and both indexes, still compressed', async () => {
  await cli('crawl', server.url, '--db', tmp.path('one.sqlite'), '-q');
  await cli('merge', tmp.path('one.sqlite'), '--db', out, '-q');
  let db: Database.Database = openArchive(out, 'existing');
  expect(db.transaction(() => convertPageText(db, 'compact'))()).toBe(PAGES.length);
  closeArchive(db);

  version = 2;
  await cli('crawl', server.url, '--db', tmp.path('two.sqlite'), '-q');
  await cli('merge', tmp.path('two.sqlite'), '--db', out, '-q');

  db = openArchive(out, 'readonly');
  try {
    expect(pageTextLayout(db)).toBe('compact');
    const found = (query: string) =>
      searchArchive(db, query, { limit: 10 })
        .map((hit) => new URL(hit.url).pathname)
        .sort();
    expect(found('lighthouse')).toEqual([...PAGES].sort());
    expect(found('anchorage')).toEqual([]);
    expect(found('新的灯塔')).toEqual(['/zh']);
    expect(found('旧的港口')).toEqual([]);
    const rows = db
      .prepare<[], { title: string; text: string; stored: number; size: number }>(
        'SELECT t.title, t.body AS text, length(z.body) AS stored, z.body_size AS size FROM page_text t JOIN page_text_zlib z USING (url_id)',
      )
      .all();
    expect(rows).toHaveLength(PAGES.length);
    for (const row of rows) {
      expect(row.title).toMatch(/ v2$/);
      expect(row.text).toContain('lighthouse beacon lighthouse');
      expect(row.stored).toBeLessThan(row.size / 4);
    }
  } finally {
    db.close();
  }
  const check = openArchive(out, 'existing');
  check.exec(
    "INSERT INTO page_text_fts(page_text_fts) VALUES ('integrity-check'); INSERT INTO page_text_trigram(page_text_trigram) VALUES ('integrity-check')",
  );
  closeArchive(check);
}, 60_000);
