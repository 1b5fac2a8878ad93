import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { CrawlRecord } from '../../src/storage/crawl-state/crawl-record.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import { SqlitePageSink } from '../../src/storage/crawl-state/sqlite-page-sink.js';
import { searchArchive } from '../../src/storage/query/search-archive.js';
import { pageTextLookup } from '../../src/storage/reader/page-text.js';
import { convertPageText, pageTextLayout } from '../../src/storage/writer/convert-page-text.js';
import type { PageOutcome, StoredResponse } from '../../src/pipeline/ports.js';

type Claim = PageOutcome['claim'];
import { tempDir } from '../support/archive.js';
import { codeBlocks, docPages } from '../support/markdown.js';
import { TEXT_EXTRACTION_VERSION } from '../../src/html/index.js';

// convertPageText turns page_text compact (bodies zlib-compressed under a view that inflates them) and
// back, in the caller's transaction: the same rows, the same hits, ranks and snippets, both indexes
// consistent, and a crawl writing on into either layout.

const run = promisify(execFile);
const SQLITE3 = ['/usr/bin/sqlite3', '/usr/local/bin/sqlite3'].find((path) => existsSync(path));
if (!SQLITE3) console.warn('convert-page-text: skipping the sqlite3 CLI check: the sqlite3 CLI is not installed');
const PYTHON3 = ['/usr/bin/python3', '/usr/local/bin/python3'].find((path) => existsSync(path));
if (!PYTHON3) console.warn('convert-page-text: skipping the Python check: python3 is not installed');

const tmp = tempDir();
const path = tmp.path('text.sqlite');
let db: Database.Database;
let sink: SqlitePageSink;
let frontier: SqliteFrontier;

const words = ['lighthouse', 'harbour', 'keeper', 'lantern', 'storm', 'ship', 'rocks', 'tide', 'beacon', 'coast'];
/** A few hundred words, so the body compresses; page i says some words more than others, so ranks differ. */
const prose = (i: number) =>
  Array.from({ length: 400 }, (_, k) => `${words[(k * (i + 3)) % words.length]} ${k % (i + 2) === 0 ? 'sys.path' : 'the'}`).join(' ');
const PAGES: Record<string, { title: string; body: string; headings?: string }> = {
  'http://site/a': { title: 'Lighthouse keeper', body: prose(1), headings: 'The keeper' },
  'http://site/b': { title: 'Harbour', body: prose(2) },
  'http://site/c': { title: 'Storm', body: prose(3), headings: 'Rocks\nTide' },
  'http://site/tiny': { title: 'Tiny', body: 'a lighthouse' },
  'http://site/zh': { title: '灯塔', body: '这是一个关于灯塔和港口的中文页面。'.repeat(30) + ' lighthouse' },
  'http://site/é': { title: 'Café', body: 'Une crème brûlée au café près du phare. lighthouse' },
};

const response = (title: string, body: string, headings = ''): StoredResponse => ({
  status: 200,
  headers: { 'content-type': 'text/html' },
  contentType: 'text/html',
  charset: 'utf-8',
  location: null,
  body: Buffer.from(`<title>${title}</title><p>${body}</p>`),
  fetchedAt: '2026-01-01T00:00:00.000Z',
  elapsedMs: 1,
  title,
  text: { body, headings, version: TEXT_EXTRACTION_VERSION },
});

const claims = new Map<string, Claim>();
/** Stores a response for `url`; a URL stored before gets a newer response, as a recrawl commits it. */
async function commit(url: string, stored: StoredResponse): Promise<void> {
  if (!claims.has(url)) {
    frontier.addRoots([{ url, key: url, origin: 'http://site' }]);
    const [claim] = await frontier.claimFrom('http://site', 1);
    expect(claim?.url).toBe(url);
    claims.set(url, claim!);
  }
  await sink.commit({ claim: claims.get(url)!, state: 'done', tries: 1, response: stored, discovered: [] });
}

const QUERIES: [string, 'typed' | 'fts'][] = [
  ['lighthouse', 'typed'],
  ['sys.path', 'typed'],
  ['keeper storm', 'typed'],
  ['title:harbour OR tide', 'fts'],
  ['NEAR(storm keeper, 8) OR "harbour the"', 'fts'],
  ['light*', 'fts'],
  ['creme brulee', 'typed'],
  ['灯塔和港', 'typed'],
];
const answers = () =>
  QUERIES.map(([query, mode]) =>
    searchArchive(db, query, { limit: 20, mode, markStart: '<', markEnd: '>' }).map(({ fetchedAt: _, ...hit }) => hit),
  );
const rows = () => db.prepare('SELECT * FROM page_text ORDER BY url_id').all();
/** The whole schema but where each table starts in the file. */
const schema = () => db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name').all();
const checkIndexes = () =>
  db.exec(
    "INSERT INTO page_text_fts(page_text_fts) VALUES ('integrity-check'); INSERT INTO page_text_trigram(page_text_trigram) VALUES ('integrity-check')",
  );
const convert = (to: 'plain' | 'compact') => db.transaction(() => convertPageText(db, to, { batchSize: 2 }))();

beforeAll(async () => {
  db = openArchive(path, 'create');
  frontier = new SqliteFrontier(db);
  sink = new SqlitePageSink(db, path, new CrawlRecord(db).startRun({}, new Date()));
  for (const [url, page] of Object.entries(PAGES)) await commit(url, response(page.title, page.body, page.headings));
});

afterAll(() => {
  db?.close();
  tmp.cleanup();
});

describe('convertPageText', () => {
  let plainAnswers: unknown;
  let plainRows: unknown;
  let plainSchema: unknown;

  it('stores the bodies compressed in the sqlar convention, and reads the same rows, hits, ranks and snippets', () => {
    plainAnswers = answers();
    plainRows = rows();
    plainSchema = schema();
    expect((plainAnswers as unknown[][]).every((hits) => hits.length > 0)).toBe(true);
    expect(pageTextLayout(db)).toBe('plain');

    expect(convert('compact')).toBe(Object.keys(PAGES).length);
    expect(pageTextLayout(db)).toBe('compact');
    const stored = db
      .prepare<[], { url: string; stored: number; size: number }>(
        'SELECT url, length(CAST(body AS BLOB)) AS stored, body_size AS size FROM page_text_zlib',
      )
      .all();
    // Compressed where it pays; a short body that would grow stays as it was, length = size.
    expect(stored.find((row) => row.url === 'http://site/a')!.stored).toBeLessThan(
      stored.find((row) => row.url === 'http://site/a')!.size / 4,
    );
    expect(stored.find((row) => row.url === 'http://site/tiny')).toEqual({ url: 'http://site/tiny', stored: 12, size: 12 });
    expect(rows()).toEqual(plainRows);
    expect(answers()).toEqual(plainAnswers);
    // What an export hands on with each page (pages.jsonl's text).
    expect(pageTextLookup(db)!('http://site/c')).toBe(PAGES['http://site/c']!.body);
    checkIndexes();
    expect(convert('compact')).toBe(0);
  });

  it('keeps both indexes in step as a crawl writes on into the compact layout', async () => {
    await commit('http://site/a', response('Gulls', 'now only about gulls 海鸥在港口上空'));
    await commit('http://site/new', response('New', `${prose(5)} gulls`));
    await commit('http://site/b', { ...response('', ''), status: 500, text: undefined });
    checkIndexes();
    const found = (query: string) => searchArchive(db, query, { limit: 20 }).map((hit) => hit.url);
    expect(found('gulls')).toEqual(['http://site/a', 'http://site/new']);
    expect(found('harbour')).not.toContain('http://site/b');
    expect(found('keeper')).not.toContain('http://site/a');
    expect(found('海鸥在')).toEqual(['http://site/a']);
    expect(db.prepare("SELECT body FROM page_text WHERE url = 'http://site/a'").get()).toEqual({
      body: 'now only about gulls 海鸥在港口上空',
    });
  });

  it.skipIf(!SQLITE3)('is read by the sqlite3 shell, whose sqlar_uncompress inflates the bodies', async () => {
    const shell = async (sql: string) => (await run(SQLITE3!, ['-json', path, sql])).stdout;
    // Every table and view counts its rows there, the indexes too (a full scan of one reads its text).
    const names = db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name").all();
    const counts = await shell(names.map(({ name }) => `SELECT '${name}' AS name, count(*) AS n FROM "${name}"`).join(' UNION ALL '));
    expect(JSON.parse(counts)).toEqual(
      names.map(({ name }) => ({ name, n: (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n })),
    );
    const sql = "SELECT url, body FROM page_text WHERE url = 'http://site/c'";
    expect(JSON.parse(await shell(sql))).toEqual([db.prepare(sql).get()]);
    const snippets = `SELECT url, snippet(page_text_fts, -1, '[', ']', '…', 16) AS s FROM page_text_fts JOIN page_text t ON t.url_id = page_text_fts.rowid WHERE page_text_fts MATCH '"sys path"' ORDER BY rank`;
    expect(JSON.parse(await shell(snippets))).toEqual(db.prepare(snippets).all());
  });

  it.skipIf(!PYTHON3)("is read by Python's sqlite3 with the sqlar_uncompress of docs/search.md, snippets and all", async () => {
    const [example] = codeBlocks(docPages().find((doc) => doc.path === 'docs/search.md')!.text, 'python');
    expect(example).toContain('create_function("sqlar_uncompress"');
    const script = example!.replace('"example.sqlite"', JSON.stringify(path)).replace("match 'crawler'", "match 'lighthouse'");
    const { stdout } = await run(PYTHON3!, ['-c', script]);
    const expected = db
      .prepare<[], { url: string; s: string }>(
        `SELECT t.url, snippet(page_text_fts, -1, '[', ']', '…', 16) AS s FROM page_text_fts JOIN page_text t ON t.url_id = page_text_fts.rowid
         WHERE page_text_fts MATCH 'lighthouse' ORDER BY rank LIMIT 20`,
      )
      .all();
    expect(expected.length).toBeGreaterThan(2);
    expect(expected.some((hit) => hit.s.includes('[lighthouse]'))).toBe(true);
    expect(stdout.trim().split('\n')).toEqual(expected.map((hit) => `${hit.url} ${hit.s}`));
  });

  it('turns back into the plain table of migrations 0006-0009 with the same rows, hits, ranks and snippets', async () => {
    const compactAnswers = answers();
    const compactRows = rows();
    expect(convert('plain')).toBe(Object.keys(PAGES).length);
    expect(pageTextLayout(db)).toBe('plain');
    expect(rows()).toEqual(compactRows);
    expect(answers()).toEqual(compactAnswers);
    // Table, triggers and all: the schema a new archive has, as a shard check compares it.
    expect(schema()).toEqual(plainSchema);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'page_text_zlib'").all()).toEqual([]);
    checkIndexes();
    await commit('http://site/c', response('Storm', 'calm'));
    checkIndexes();
    expect(searchArchive(db, 'calm', { limit: 5 }).map((hit) => hit.url)).toEqual(['http://site/c']);
  });

  it('changes nothing when the caller rolls back', () => {
    const before = db.prepare('SELECT type, name, sql FROM sqlite_schema ORDER BY name').all();
    expect(() =>
      db.transaction(() => {
        convertPageText(db, 'compact');
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    expect(db.prepare('SELECT type, name, sql FROM sqlite_schema ORDER BY name').all()).toEqual(before);
    expect(() => convertPageText(db, 'compact')).toThrow(/transaction/);
  });
});
