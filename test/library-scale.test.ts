import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport } from '../src/cli/format-report.js';
import {
  ArchivePathError,
  crawl,
  crawlWorker,
  frontierStatus,
  FrontierExistsError,
  initFrontier,
  InvalidOptionError,
  InvalidRootError,
  merge,
  NoFrontierError,
  PgUnreachableError,
  type MergeProgress,
  type WorkerEvent,
} from '../src/index.js';
import { pageRows, readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { sitePaths, startLinkedSite } from './support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import type { TestServer } from './support/test-server.js';
import { within } from './support/wait.js';

noticeIfMissing('library-scale');

const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/none';

/** The pages view of an archive: URL, status and body hash, in URL order. */

describe('merge() from code', () => {
  // Two overlapping shards of one 20-page site: A leaves out pages 10-19, B stops after 12 pages.
  const N = 20;
  let site: TestServer;
  const tmp = tempDir();
  const shardA = tmp.path('a.sqlite');
  const shardB = tmp.path('b.sqlite');

  beforeAll(async () => {
    site = await startLinkedSite(N);
    const a = await crawl({ roots: [site.url], db: shardA, concurrency: 4, exclude: ['/p/1[0-9]$'] }).done;
    const b = await crawl({ roots: [site.url], db: shardB, concurrency: 4, maxPages: 12 }).done;
    expect([a.endedBy, b.endedBy]).toEqual(['finished', 'limit']);
  });
  afterAll(async () => {
    await site?.close();
    tmp.cleanup();
  });

  it('gives the archive `crawlite merge` gives, and the report it prints, with each page once', async () => {
    const db = tmp.path('merged-lib.sqlite');
    const progress: MergeProgress['type'][] = [];
    const report = await merge({ shards: [shardA, shardB], db, onProgress: (event) => progress.push(event.type) });
    const cliDb = tmp.path('merged-cli.sqlite');
    const cli = await execCli(['merge', shardA, shardB, '--db', cliDb]);
    expect(cli.code, cli.stderr).toBe(0);

    expect(cli.stdout).toBe(`${formatReport(cliDb, report, 'archive')}\n`);
    expect(pageRows(db)).toEqual(pageRows(cliDb));
    const union = [...new Set([...pageRows(shardA), ...pageRows(shardB)].map((page) => page.url))].sort();
    expect(pageRows(db).map((page) => page.url)).toEqual(union);
    expect(report).toMatchObject({
      archive: db,
      shards: 2,
      skipped: 0,
      pagesMerged: pageRows(shardA).length + pageRows(shardB).length,
      pages: union.length,
    });
    expect(progress.filter((type) => type !== 'batch')).toEqual(['shard-start', 'shard-end', 'shard-start', 'shard-end']);

    // Again: both shards are already in, and nothing changes.
    const again = await merge({ shards: [shardA, shardB], db });
    expect(again).toMatchObject({ shards: 2, skipped: 2, pagesMerged: 0, pages: union.length });
  });

  it('rejects a missing shard with the error the command line prints, before writing anything', async () => {
    const db = tmp.path('never.sqlite');
    const missing = tmp.path('missing.sqlite');
    const error = await merge({ shards: [shardA, missing], db }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ArchivePathError);
    expect(error).toMatchObject({ code: 'ARCHIVE_PATH' });
    const cli = await execCli(['merge', shardA, missing, '--db', db]);
    expect([cli.code, cli.stderr]).toEqual([1, `crawlite: ${(error as Error).message}\n`]);
    expect(existsSync(db)).toBe(false);
  });

  it('refuses bad input as InvalidOptionError', async () => {
    await expect(merge({ shards: [], db: tmp.path('x.sqlite') })).rejects.toMatchObject({ code: 'INVALID_OPTION', option: 'shards' });
    await expect(merge({ shards: [shardA], db: ':memory:' })).rejects.toBeInstanceOf(InvalidOptionError);
  });
});

describe('scale-out calls refuse bad input before connecting', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('initFrontier checks roots and options as the command line does', async () => {
    await expect(initFrontier({ connection: UNREACHABLE, roots: ['http//example.com'] })).rejects.toBeInstanceOf(InvalidRootError);
    await expect(initFrontier({ connection: UNREACHABLE, roots: ['http://example.com/'], maxPages: -1 })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      option: 'maxPages',
    });
    await expect(initFrontier({ connection: UNREACHABLE, roots: ['http://example.com/'], exclude: ['('] })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      option: 'exclude',
    });
    await expect(initFrontier({ connection: UNREACHABLE, roots: [] })).rejects.toMatchObject({ code: 'INVALID_OPTION', option: 'roots' });
    await expect(initFrontier({ connection: UNREACHABLE, roots: ['http://example.com/'] })).rejects.toBeInstanceOf(PgUnreachableError);
  });

  it('crawlWorker checks its options; an unreachable server rejects done with PG_UNREACHABLE', async () => {
    await expect(crawlWorker({ connection: UNREACHABLE, db: tmp.path('w.sqlite'), concurrency: 0 }).done).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      option: 'concurrency',
    });
    await expect(crawlWorker({ connection: UNREACHABLE, db: tmp.path('w.sqlite'), leaseMs: 10 }).done).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      option: 'leaseMs',
    });
    const handle = crawlWorker({ connection: UNREACHABLE, db: tmp.path('w.sqlite') });
    await expect(handle.done).rejects.toMatchObject({ code: 'PG_UNREACHABLE', message: expect.stringContaining('127.0.0.1:1/none') });
    expect(existsSync(tmp.path('w.sqlite'))).toBe(false);
    await expect(frontierStatus({ connection: UNREACHABLE })).rejects.toBeInstanceOf(PgUnreachableError);
  });
});

describe.skipIf(!POSTGRES_INSTALLED)('a shared crawl from code', () => {
  const N = 60;
  const pg = useCluster();
  let site: TestServer;
  const tmp = tempDir();

  beforeAll(async () => {
    // A few ms per page, so both workers take part.
    site = await startLinkedSite(N, 5);
  });
  afterAll(async () => {
    await site?.close();
    tmp.cleanup();
  });

  it('initFrontier, two crawlWorker handles and merge() archive the site, each page once', async () => {
    const connection = await pg.createDatabase('shared');
    const init = await initFrontier({ connection, roots: [site.url], concurrency: 2, maxDepth: 50 });
    expect(init).toEqual({ roots: [site.url], options: { concurrency: 2, maxDepth: 50 }, queued: 1 });
    await expect(initFrontier({ connection, roots: [site.url] })).rejects.toBeInstanceOf(FrontierExistsError);

    const shards = [tmp.path('w1.sqlite'), tmp.path('w2.sqlite')];
    const workers = shards.map((db, i) => crawlWorker({ connection, db, name: `w${i + 1}` }));
    const fetched: string[][] = [[], []];
    workers.forEach((worker, i) =>
      worker.events.subscribe((event: WorkerEvent) => event.type === 'fetched' && fetched[i]!.push(new URL(event.report.url).pathname)),
    );
    const reports = await within(Promise.all(workers.map((worker) => worker.done)), 20_000, 'the workers', () =>
      workers.forEach((worker) => worker.stop()),
    );

    const paths = sitePaths(N);
    expect(reports.map((report) => [report.archive, report.name, report.endedBy])).toEqual([
      [shards[0], 'w1', 'finished'],
      [shards[1], 'w2', 'finished'],
    ]);
    expect([...fetched[0]!, ...fetched[1]!].sort()).toEqual([...paths].sort());
    expect(reports.map((report) => report.finished)).toEqual(fetched.map((list) => list.length));
    for (const path of paths) expect(site.hitCount(path), path).toBe(1);

    const status = await frontierStatus({ connection });
    expect(status.total).toEqual({ queued: 0, leased: 0, done: paths.length, failed: 0, skipped: 0 });
    expect(status.origins).toEqual([{ origin: site.url.slice(0, -1), counts: status.total }]);
    expect(status.workers.map((worker) => [worker.name, worker.leased])).toEqual([
      ['w1', 0],
      ['w2', 0],
    ]);

    const merged = await merge({ shards, db: tmp.path('merged.sqlite') });
    expect(merged).toMatchObject({ shards: 2, pages: paths.length, urls: { done: paths.length, queued: 0 } });
    expect(
      pageRows(merged.archive)
        .map((page) => new URL(page.url).pathname)
        .sort(),
    ).toEqual([...paths].sort());
  });

  it('stop() ends a worker with endedBy interrupted and leaves the rest queued', async () => {
    const slow = await startLinkedSite(200, 20);
    try {
      const connection = await pg.createDatabase('stopped');
      await initFrontier({ connection, roots: [slow.url] });
      const worker = crawlWorker({ connection, db: tmp.path('stopped.sqlite'), concurrency: 2, name: 'stopper' });
      let fetched = 0;
      worker.events.subscribe((event) => {
        if (event.type === 'fetched' && (fetched += 1) === 5) worker.stop();
      });
      const report = await within(worker.done, 15_000, 'the stopped worker', () => worker.stop());
      expect(report).toMatchObject({ endedBy: 'interrupted', name: 'stopper' });
      expect(report.finished).toBe(fetched);
      const status = await frontierStatus({ connection });
      expect(status.total.queued).toBeGreaterThan(0);
      expect(status.total.done).toBe(fetched);
    } finally {
      await slow.close();
    }
  });

  it('frontierStatus and crawlWorker refuse a database without a crawl with NoFrontierError', async () => {
    const connection = await pg.createDatabase('empty');
    await expect(frontierStatus({ connection })).rejects.toBeInstanceOf(NoFrontierError);
    await expect(crawlWorker({ connection, db: tmp.path('none.sqlite') }).done).rejects.toMatchObject({ code: 'NO_FRONTIER' });
  });
});
