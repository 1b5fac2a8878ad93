import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { CrawlRecord } from '../../src/storage/crawl-state/crawl-record.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import { SqlitePageSink } from '../../src/storage/crawl-state/sqlite-page-sink.js';
import type { PageOutcome } from '../../src/pipeline/ports.js';
import { readArchive, tempDir } from '../support/archive.js';
import { discovered } from '../support/crawl-items.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

async function setUp(name: string) {
  const path = tmp.path(name);
  const db = openArchive(path, 'create');
  const frontier = new SqliteFrontier(db);
  frontier.addRoots([{ url: 'http://site/', key: 'http://site/', origin: 'http://site' }]);
  const runId = new CrawlRecord(db).startRun({}, new Date());
  const [claim] = await frontier.claimFrom('http://site', 1);
  return { path, db, frontier, claim: claim!, sink: new SqlitePageSink(db, path, runId) };
}

const response = {
  status: 200,
  headers: { 'content-type': 'text/html' },
  contentType: 'text/html',
  charset: null,
  location: null,
  body: Buffer.from('<a>'),
  fetchedAt: '2026-01-01T00:00:00.000Z',
  elapsedMs: 3,
};

describe('SqlitePageSink', () => {
  it('commits the page, its links, new URLs and the done state together', async () => {
    const { path, db, claim, sink } = await setUp('commit.sqlite');
    const outcome: PageOutcome = {
      claim,
      state: 'done',
      tries: 1,
      response,
      discovered: [
        discovered('http://site/a'),
        { ...discovered('http://other/'), skip: { code: 'out_of_scope', message: 'other' } },
        { ...discovered('http://site/'), known: true },
      ],
    };
    expect(await sink.commit(outcome)).toEqual({ newUrls: 2 });
    db.close();
    expect(readArchive(path, 'SELECT url, state, depth FROM urls ORDER BY url')).toEqual([
      { url: 'http://other/', state: 'skipped', depth: 1 },
      { url: 'http://site/', state: 'done', depth: 0 },
      { url: 'http://site/a', state: 'queued', depth: 1 },
    ]);
    expect(readArchive(path, 'SELECT count(*) AS n FROM links')).toEqual([{ n: 3 }]);
    expect(readArchive(path, 'SELECT url, status, fetched_at FROM pages')).toEqual([
      { url: 'http://site/', status: 200, fetched_at: response.fetchedAt },
    ]);
  });

  it('writes nothing at all when the transaction fails part-way', async () => {
    const { path, db, claim, sink } = await setUp('rollback.sqlite');
    // A CHECK violation on the final state update comes after the links and the page were written.
    const broken = { claim, state: 'bogus' as 'done', tries: 1, response, discovered: [discovered('http://site/a')] };
    await expect(sink.commit(broken)).rejects.toThrow(/CHECK constraint/);
    db.close();
    expect(readArchive(path, 'SELECT count(*) AS n FROM pages')).toEqual([{ n: 0 }]);
    expect(readArchive(path, 'SELECT count(*) AS n FROM links')).toEqual([{ n: 0 }]);
    expect(readArchive(path, 'SELECT url, state FROM urls')).toEqual([{ url: 'http://site/', state: 'fetching' }]);
  });

  it('keeps the shortest depth, and queues a URL skipped for its depth or a nofollow once found by a way that allows it', async () => {
    const { path, db, claim, sink } = await setUp('upgrade.sqlite');
    const skipped = (url: string, code: string, depth: number) => ({ ...discovered(url), depth, skip: { code, message: code } });
    await sink.commit({
      claim,
      state: 'done',
      tries: 1,
      discovered: [
        skipped('http://site/deep', 'max_depth', 5),
        skipped('http://site/nf', 'nofollow', 1),
        skipped('http://other/', 'out_of_scope', 1),
        { ...discovered('http://site/q'), depth: 4 },
      ],
    });
    // The same page again (a later fetch of it) finds the URLs by better ways.
    const result = await sink.commit({
      claim,
      state: 'done',
      tries: 1,
      discovered: [
        { ...discovered('http://site/deep'), depth: 2 },
        discovered('http://site/nf'),
        { ...discovered('http://other/'), depth: 0 },
        { ...discovered('http://site/q'), depth: 2 },
      ],
    });
    expect(result.newUrls).toBe(4);
    db.close();
    expect(readArchive(path, "SELECT url, state, depth, error FROM urls WHERE url != 'http://site/' ORDER BY url")).toEqual([
      // Out of scope stays skipped (scope does not change with depth), but its depth is the shorter one.
      { url: 'http://other/', state: 'skipped', depth: 0, error: 'out_of_scope' },
      { url: 'http://site/deep', state: 'queued', depth: 2, error: null },
      { url: 'http://site/nf', state: 'queued', depth: 1, error: null },
      { url: 'http://site/q', state: 'queued', depth: 2, error: null },
    ]);
  });

  it('counts a query variant of a path once, when its URL is new, and still upgrades one found again by a better way', async () => {
    const { path, db, claim, sink } = await setUp('variants.sqlite');
    const variant = (query: string, depth: number, skip?: { code: string; message: string }) => ({
      ...discovered(`http://site/list?${query}`),
      depth,
      pathKey: 'http://site/list',
      ...(skip ? { skip } : {}),
    });
    await sink.commit({
      claim,
      state: 'done',
      tries: 1,
      discovered: [variant('a', 3, { code: 'max_depth', message: 'deep' }), variant('b', 1)],
    });
    const again = await sink.commit({ claim, state: 'done', tries: 1, discovered: [variant('a', 1), variant('b', 2), variant('c', 1)] });
    // a: upgraded from skipped to queued; b: no better way, no change; c: new.
    expect(again.newUrls).toBe(2);
    db.close();
    expect(readArchive(path, 'SELECT path, count FROM query_variants')).toEqual([{ path: 'http://site/list', count: 3 }]);
    expect(readArchive(path, "SELECT url, state, depth FROM urls WHERE url LIKE '%list%' ORDER BY url")).toEqual([
      { url: 'http://site/list?a', state: 'queued', depth: 1 },
      { url: 'http://site/list?b', state: 'queued', depth: 1 },
      { url: 'http://site/list?c', state: 'queued', depth: 1 },
    ]);
  });

  it('stores every link of a page with more links than one insert writes', async () => {
    const { path, db, claim, sink } = await setUp('many-links.sqlite');
    const found = Array.from({ length: 75 }, (_, i) => ({ ...discovered(`http://site/p${i}`), nofollow: i % 2 === 0 }));
    expect((await sink.commit({ claim, state: 'done', tries: 1, response, discovered: [...found, found[7]!] })).newUrls).toBe(75);
    db.close();
    expect(readArchive(path, 'SELECT count(*) AS n, sum(nofollow) AS nofollow FROM links')).toEqual([{ n: 75, nofollow: 38 }]);
    expect(readArchive(path, "SELECT count(*) AS n FROM urls WHERE state = 'queued'")).toEqual([{ n: 75 }]);
  });
});
