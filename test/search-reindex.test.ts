import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestSchemaVersion, loadMigrations } from '../src/storage/archive/migrate.js';
import { TEXT_EXTRACTION_VERSION } from '../src/html/index.js';
import { execCli, runCli, spawnCli } from './support/cli.js';
import { readArchive, tempDir, UNDO_SCHEMA_7 } from './support/archive.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait.js';

// `crawlite reindex` makes pages stored without text searchable: archives from before search, or crawled with --no-text.

const tmp = tempDir();
let server: TestServer;
/** Crawled with --no-text: pages, but no page_text rows. */
let noText: string;

beforeAll(async () => {
  server = await startServer(
    routes({
      '/robots.txt': { status: 404 },
      '/': html('<a href="/a">a</a> <a href="/b">b</a>', 'Home'),
      '/a': html('<p>The archivist catalogues every manuscript.</p>', 'Archive'),
      '/b': html('<p>Nothing here but zeppelins.</p>', 'Airships'),
    }),
  );
  noText = tmp.path('no-text.sqlite');
  const crawl = await runCli(['crawl', server.url, '--db', noText, '-q', '--no-text']);
  expect(crawl.code).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

/** Drops what migration 6 made, as in an archive written by a crawlite before search. */
function toSchema5(path: string): void {
  const db = new Database(path);
  db.exec(UNDO_SCHEMA_7);
  db.exec(`DROP VIEW search; DROP VIEW page_text_cjk; DROP TRIGGER page_text_insert; DROP TRIGGER page_text_delete; DROP TRIGGER page_text_update;
           DROP TABLE page_text_trigram; DROP TABLE page_text_fts; DROP TABLE page_text; PRAGMA user_version = 5;`);
  db.close();
}

const ftsIntegrity = (path: string) => {
  const db = new Database(path);
  try {
    db.exec(
      "INSERT INTO page_text_fts(page_text_fts) VALUES ('integrity-check'); INSERT INTO page_text_trigram(page_text_trigram) VALUES ('integrity-check')",
    );
  } finally {
    db.close();
  }
};

describe('crawlite reindex', () => {
  it('a --no-text crawl stores no text, and search says to run reindex; reindex makes it searchable', async () => {
    const path = tmp.path('reindex-no-text.sqlite');
    copyFileSync(noText, path);
    expect(readArchive(path, 'SELECT count(*) AS n FROM page_text')).toEqual([{ n: 0 }]);
    const before = await runCli(['search', path, 'manuscripts']);
    expect(before.code).toBe(0);
    expect(before.stderr).toBe(`crawlite: 3 HTML pages have no text in the search index; run crawlite reindex ${path}\n`);
    const reindex = await runCli(['reindex', path]);
    expect(reindex).toMatchObject({ code: 0 });
    expect(reindex.stdout).toMatch(/^indexed 3 pages in [\d.]+ s/);
    const after = await runCli(['search', path, 'manuscripts', '-f', 'ndjson']);
    expect(after.stderr).toBe('');
    expect(JSON.parse(after.stdout)).toMatchObject({ url: `${server.url}a`, title: 'Archive' });
    // Nothing left to do: a second run indexes nothing.
    expect((await runCli(['reindex', path])).stdout).toMatch(/^indexed 0 pages/);
    ftsIntegrity(path);
  });

  it('an archive of schema 5 (no search tables) is refused by search with a pointer to reindex, which migrates and indexes it', async () => {
    const path = tmp.path('schema5.sqlite');
    copyFileSync(noText, path);
    toSchema5(path);
    const refused = await execCli(['search', path, 'zeppelin']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^crawlite: this archive has no search index .*run crawlite reindex <db>.*\n$/);
    expect((await runCli(['reindex', path, '-q'])).code).toBe(0);
    expect(readArchive(path, 'PRAGMA user_version')).toEqual([{ user_version: latestSchemaVersion(loadMigrations()) }]);
    const found = await runCli(['search', path, 'zeppelin', '-f', 'json']);
    expect(JSON.parse(found.stdout)).toEqual([
      expect.objectContaining({ url: `${server.url}b`, snippet: 'Nothing here but [zeppelins].' }),
    ]);
  });

  it('killed part-way, it keeps the batches it committed, and a second run finishes the rest', async () => {
    const path = tmp.path('big.sqlite');
    copyFileSync(noText, path);
    // Many pages sharing one large body: extraction of each takes long enough to kill the run in the middle.
    const db = new Database(path);
    const words = Array.from({ length: 300 }, (_, i) => `<p>word${i % 97} lorem ipsum dolor</p>`).join('');
    const body = db
      .prepare('INSERT INTO body (hash, size, data) VALUES (randomblob(32), ?, ?)')
      .run(words.length, Buffer.from(`<title>bulk</title>${words}`));
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
             INSERT INTO url (url, origin, kind, state, depth, redirect_hops) SELECT 'http://bulk.test/' || i, 'http://bulk.test', 'page', 'done', 1, 0 FROM n`);
    db.prepare(
      `INSERT INTO response (url_id, run_id, status, content_type, charset, headers, body_id, fetched_at, elapsed_ms, links_found, links_new)
                SELECT id, 1, 200, 'text/html', 'utf-8', '{}', ?, '2026-01-01T00:00:00.000Z', 1, 0, 0 FROM url WHERE origin = 'http://bulk.test'`,
    ).run(body.lastInsertRowid);
    db.close();
    const total = 2003;

    const child = spawnCli(['reindex', path]);
    const indexed = () => readArchive<{ n: number }>(path, 'SELECT count(*) AS n FROM page_text')[0]!.n;
    await waitFor('a first batch committed', () => indexed() >= 200, 60_000);
    child.kill('SIGKILL');
    await child.exited;
    const kept = indexed();
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(total);
    expect(kept % 200 === 0 || kept === total).toBe(true);

    const rerun = await execCli(['reindex', path]);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toMatch(new RegExp(`^indexed ${total - kept} pages`));
    expect(indexed()).toBe(total);
    ftsIntegrity(path);
    const bulk = await runCli(['search', path, 'word42', '--limit', '5000', '-f', 'ndjson']);
    expect(bulk.stdout.trim().split('\n')).toHaveLength(2000);
  }, 120_000);
  it('extracts again the text an older crawlite made (text_version 1, navigation included): search snippets start at the content', async () => {
    const nav = '<div class="related" role="navigation"><h3>Navigation</h3><a href="/">index</a> <a href="/p">modules</a></div>';
    const site = await startServer(
      routes({
        '/robots.txt': { status: 404 },
        '/': html(`${nav}<a href="/p">p</a>`, 'Home'),
        '/p': html(
          `${nav}<div role="main"><h1>sys.path<a class="headerlink" href="#p">¶</a></h1><p>A list of strings for the module search path.</p></div>`,
          'sys',
        ),
      }),
    );
    try {
      const path = tmp.path('text-version-1.sqlite');
      expect((await runCli(['crawl', site.url, '--db', path, '-q'])).code).toBe(0);
      // What a crawlite before version 2 stored: every visible word, the marks of the navigation and permalinks included.
      new Database(path).exec("UPDATE page_text SET text_version = 1, body = 'Navigation index modules ' || body || ' ¶'").close();
      const snippet = async () =>
        (JSON.parse((await runCli(['search', path, 'strings', '-f', 'ndjson'])).stdout) as { snippet: string }).snippet;
      expect(await snippet()).toMatch(/^Navigation index modules/);
      const reindex = await runCli(['reindex', path]);
      expect(reindex).toMatchObject({ code: 0 });
      expect(reindex.stdout).toMatch(/^indexed 2 pages/);
      expect(await snippet()).toMatch(/^sys\.path A list of \[strings\]/);
      expect(readArchive(path, 'SELECT DISTINCT text_version FROM page_text')).toEqual([{ text_version: TEXT_EXTRACTION_VERSION }]);
      expect((await runCli(['reindex', path])).stdout).toMatch(/^indexed 0 pages/);
      ftsIntegrity(path);
    } finally {
      await site.close();
    }
  });
});
