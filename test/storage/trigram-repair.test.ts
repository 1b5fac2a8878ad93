import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/storage/archive/migrate.js';
import { APPLICATION_ID, closeArchive, openArchive } from '../../src/storage/archive/open-archive.js';
import { CJK } from '../../src/storage/writer/page-text-writer.js';
import { searchArchive } from '../../src/storage/query/search-archive.js';
import { readArchive, tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';

// An archive made before migration 8 (its trigram index built with an option of SQLite 3.45) is repaired
// when crawlite opens it to write (here `crawlite reindex`, as docs/archive.md says): the index is made again, filled
// from page_text, and still finds CJK text.

const run = promisify(execFile);
const SQLITE3 = ['/usr/bin/sqlite3', '/usr/local/bin/sqlite3'].find((path) => existsSync(path));
if (!SQLITE3) console.warn('trigram-repair: skipping the sqlite3 check: the sqlite3 CLI is not installed (apt-get install sqlite3)');

const SITE = 'http://site.test/';
const PAGES: Array<[string, string, string]> = [
  ['zh', '中文页面', '这是一个中文搜索引擎的测试页面。'],
  ['ja', '日本語のページ', '東京都の図書館で日本語の本を読みます。'],
  ['fr', 'Café', 'Une crème brûlée au café.'],
];

const tmp = tempDir();
const path = tmp.path('schema7.sqlite');
const fresh = tmp.path('fresh.sqlite');

/** What a crawlite at schema 7 left: its migrations only, and pages with their text written through its triggers. */
function archiveOfSchema7(file: string): void {
  const db = new Database(file);
  try {
    migrate(
      db,
      loadMigrations().filter((migration) => migration.version <= 7),
    );
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.prepare('INSERT INTO run (started_at, options) VALUES (?, ?)').run('2026-01-01T00:00:00.000Z', '{}');
    // As that crawlite's writer did: page_text had no text_version then.
    const text = db.prepare('INSERT INTO page_text (url_id, url, title, headings, description, body, cjk) VALUES (?, ?, ?, ?, NULL, ?, ?)');
    PAGES.forEach(([name, title, body], index) => {
      const id = index + 1;
      // The page itself, so that reindex (which extracts again the text schema 7 made) finds the same words.
      const html = Buffer.from(`<title>${title}</title><p>${body}</p>`);
      db.prepare('INSERT INTO body (id, hash, size, data) VALUES (?, randomblob(32), ?, ?)').run(id, html.length, html);
      db.prepare("INSERT INTO url (id, url, origin, kind, state, depth, redirect_hops) VALUES (?, ?, ?, 'page', 'done', 1, 0)").run(
        id,
        SITE + name,
        SITE.slice(0, -1),
      );
      db.prepare(
        `INSERT INTO response (url_id, run_id, status, content_type, charset, headers, body_id, fetched_at, elapsed_ms, links_found, links_new)
        VALUES (?, 1, 200, 'text/html', 'utf-8', '{}', ?, '2026-01-01T00:00:00.000Z', 1, 0, 0)`,
      ).run(id, id);
      text.run(id, SITE + name, title, '', body, CJK.test(body) || CJK.test(title) ? 1 : 0);
    });
  } finally {
    db.close();
  }
}

const schema = (file: string) =>
  readArchive<{ type: string; name: string; sql: string | null }>(file, 'SELECT type, name, sql FROM sqlite_schema ORDER BY type, name');
const found = (db: Database.Database, query: string) =>
  searchArchive(db, query, { limit: 10 })
    .map((hit) => hit.url.slice(SITE.length))
    .sort();

beforeAll(async () => {
  archiveOfSchema7(path);
  expect(readArchive(path, "SELECT sql FROM sqlite_schema WHERE name = 'page_text_trigram'")[0]).toMatchObject({
    sql: expect.stringContaining('remove_diacritics 1'),
  });
  expect(await runCli(['reindex', path])).toMatchObject({ code: 0 });
  closeArchive(openArchive(fresh, 'create'));
});

afterAll(() => tmp.cleanup());

describe('migration 8 on an archive of schema 7', () => {
  it('leaves the schema exactly a new archive has, with a trigram tokenizer older SQLite knows', () => {
    expect(readArchive(path, 'PRAGMA user_version')).toEqual([{ user_version: loadMigrations().at(-1)!.version }]);
    const [trigram] = readArchive<{ sql: string }>(path, "SELECT sql FROM sqlite_schema WHERE name = 'page_text_trigram'");
    expect(trigram!.sql).toContain('tokenize="trigram"');
    expect(trigram!.sql).not.toContain('remove_diacritics');
    expect(schema(path)).toEqual(schema(fresh));
  });

  it('fills the index again from page_text: search finds the CJK pages, and pages written after it', () => {
    const db = openArchive(path, 'create');
    try {
      db.exec("INSERT INTO page_text_trigram(page_text_trigram) VALUES ('integrity-check')");
      expect(db.prepare('SELECT count(*) AS n FROM page_text_trigram').get()).toEqual({ n: 2 });
      expect(found(db, '搜索引')).toEqual(['zh']);
      expect(found(db, '図書館')).toEqual(['ja']);
      expect(searchArchive(db, '図書館', { limit: 1 })[0]!.snippet).toContain('[図書館]');
      expect(found(db, 'creme')).toEqual(['fr']);
      db.prepare('UPDATE page_text SET body = ? WHERE url_id = 1').run('新的文字');
      expect(found(db, '搜索引')).toEqual([]);
      expect(found(db, '新的文')).toEqual(['zh']);
      db.exec("INSERT INTO page_text_trigram(page_text_trigram) VALUES ('integrity-check')");
    } finally {
      closeArchive(db);
    }
  });

  it.skipIf(!SQLITE3)('opens in the sqlite3 CLI installed here', async () => {
    const { stdout } = await run(SQLITE3!, [path, "SELECT count(*) FROM page_text_trigram WHERE page_text_trigram MATCH '図書館'"], {
      timeout: 20_000,
    });
    expect(stdout.trim()).toBe('1');
  });
});
