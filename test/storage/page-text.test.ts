import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { CrawlRecord } from '../../src/storage/crawl-state/crawl-record.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import { SqlitePageSink } from '../../src/storage/crawl-state/sqlite-page-sink.js';
import { searchArchive } from '../../src/storage/query/search-archive.js';
import type { PageOutcome, StoredResponse } from '../../src/pipeline/ports.js';
import { readArchive, tempDir } from '../support/archive.js';
import { TEXT_EXTRACTION_VERSION } from '../../src/html/index.js';

// The search indexes follow a URL's latest response: a page fetched again leaves no trace of its old text.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const response = (words: string, extra: Partial<StoredResponse> = {}): StoredResponse => ({
  status: 200,
  headers: { 'content-type': 'text/html' },
  contentType: 'text/html',
  charset: 'utf-8',
  location: null,
  body: Buffer.from(`<title>t</title><p>${words}</p>`),
  fetchedAt: '2026-01-01T00:00:00.000Z',
  elapsedMs: 1,
  title: 't',
  text: { body: words, headings: '', version: TEXT_EXTRACTION_VERSION },
  ...extra,
});

const check = (db: Database.Database) =>
  db.exec(
    "INSERT INTO page_text_fts(page_text_fts) VALUES ('integrity-check'); INSERT INTO page_text_trigram(page_text_trigram) VALUES ('integrity-check')",
  );

describe('page_text and its indexes', () => {
  it('a page committed again replaces its text in both indexes; a response without text removes it', async () => {
    const path = tmp.path('refetch.sqlite');
    const db = openArchive(path, 'create');
    const frontier = new SqliteFrontier(db);
    frontier.addRoots([{ url: 'http://site/', key: 'http://site/', origin: 'http://site' }]);
    const sink = new SqlitePageSink(db, path, new CrawlRecord(db).startRun({}, new Date()));
    const [claim] = await frontier.claimFrom('http://site', 1);
    const commit = (stored: StoredResponse) =>
      sink.commit({ claim: claim!, state: 'done', tries: 1, response: stored, discovered: [] } satisfies PageOutcome);
    const found = (query: string) => searchArchive(db, query, { limit: 10 }).map((hit) => hit.url);

    await commit(response('oldword 旧的文字'));
    expect(found('oldword')).toEqual(['http://site/']);
    await commit(response('newword 新的文字'));
    expect(found('oldword')).toEqual([]);
    expect(found('旧的文')).toEqual([]);
    expect(found('newword')).toEqual(['http://site/']);
    expect(found('新的文')).toEqual(['http://site/']);
    check(db);

    await commit(response('', { status: 500, text: undefined }));
    expect(found('newword')).toEqual([]);
    expect(readArchive(path, 'SELECT count(*) AS n FROM page_text')).toEqual([{ n: 0 }]);
    check(db);
    db.close();
  });
});
