import { lastValueFrom, merge, of, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { CommitQueue } from '../../src/pipeline/commit-queue.js';
import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import { persist } from '../../src/pipeline/operators/persist.js';
import { CrawlRecord } from '../../src/storage/crawl-state/crawl-record.js';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import type { PageOutcome } from '../../src/pipeline/ports.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import { SqlitePageSink } from '../../src/storage/crawl-state/sqlite-page-sink.js';
import { readArchive, tempDir } from '../support/archive.js';
import { discovered } from '../support/crawl-items.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

async function setUp(name: string, roots: string[]) {
  const path = tmp.path(name);
  const db = openArchive(path, 'create');
  const frontier = new SqliteFrontier(db);
  frontier.addRoots(roots.map((url) => ({ url, key: url, origin: 'http://site' })));
  const sink = new SqlitePageSink(db, path, new CrawlRecord(db).startRun({}, new Date()));
  const transactions: number[] = [];
  // The real sink, counting how many pages each transaction carried.
  const counting = {
    commit: (o: PageOutcome) => sink.commit(o),
    commitAll: (os: PageOutcome[]) => (transactions.push(os.length), sink.commitAll(os)),
  };
  return {
    path,
    db,
    frontier,
    queue: new CommitQueue(counting),
    transactions,
    claims: await frontier.claimFrom('http://site', roots.length),
  };
}

const response = {
  status: 200,
  headers: { 'content-type': 'text/html' },
  body: Buffer.from('<a>'),
  fetchedAt: '2026-01-01T00:00:00.000Z',
  elapsedMs: 2,
};

describe('persist', () => {
  it('commits the page with its links, then reports what was new and hands on only what was queued', async () => {
    const { path, db, frontier, queue, claims } = await setUp('done.sqlite', ['http://site/']);
    const handed: string[] = [];
    const item: CrawlItem = {
      claim: claims[0]!,
      attempts: 1,
      state: 'done',
      response,
      discovered: [
        discovered('http://site/a'),
        discovered('http://other/', { skip: { code: 'out_of_scope', message: 'x' } }),
        discovered('http://site/c', { kind: 'canonical', linkOnly: true }),
      ],
    };
    const report = await lastValueFrom(of(item).pipe(persist(queue, frontier, (queued) => handed.push(...queued.map((d) => d.url)))));
    expect(report).toMatchObject({ url: 'http://site/', state: 'done', status: 200, tries: 1, linksFound: 3, linksNew: 2 });
    expect(handed).toEqual(['http://site/a']);
    db.close();
    expect(readArchive(path, 'SELECT url, state FROM urls ORDER BY url')).toEqual([
      { url: 'http://other/', state: 'skipped' },
      { url: 'http://site/', state: 'done' },
      { url: 'http://site/a', state: 'queued' },
    ]);
    expect(readArchive(path, 'SELECT count(*) AS n FROM links')).toEqual([{ n: 3 }]);
  });

  it('gives a stopped URL back to the queue and commits nothing', async () => {
    const { path, db, frontier, queue, transactions, claims } = await setUp('stopped.sqlite', ['http://site/']);
    const report = await lastValueFrom(
      of<CrawlItem>({ claim: claims[0]!, attempts: 1, state: 'stopped', discovered: [] }).pipe(persist(queue, frontier, () => {})),
    );
    expect(report.state).toBe('stopped');
    expect(transactions).toEqual([]);
    db.close();
    expect(readArchive(path, 'SELECT state FROM urls')).toEqual([{ state: 'queued' }]);
  });

  it('commits pages finished in the same turn in one transaction', async () => {
    const { db, frontier, queue, transactions, claims } = await setUp('batch.sqlite', ['http://site/1', 'http://site/2', 'http://site/3']);
    const items = claims.map((claim): CrawlItem => ({ claim, attempts: 1, state: 'done', response, discovered: [] }));
    const reports = await lastValueFrom(
      merge(...items.map((item) => of(item))).pipe(
        persist(queue, frontier, () => {}),
        toArray(),
      ),
    );
    expect(reports).toHaveLength(3);
    expect(transactions).toEqual([3]);
    db.close();
  });
});
