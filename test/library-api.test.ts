import { existsSync, readdirSync } from 'node:fs';
import { lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, openArchive, recrawl, resume } from '../src/index.js';
import { readArchive, tempDir } from './support/archive.js';
import { replyAfter } from './support/delayed-reply.js';
import { linkedPage } from './support/linked-site.js';
import { startServer, type Handler, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait.js';

// A site of N linked pages under /p/, each answered after DELAY_MS, so a crawl at concurrency 2 takes
// long enough to be stopped half-way; robots.txt is missing (404), which allows everything.
const N = 30;
const DELAY_MS = 25;
const pagePath = (i: number) => `/p/${i}`;
const site: Handler = (_req, res, path) => {
  const match = /^\/p\/(\d+)$/.exec(path);
  const body =
    path === '/'
      ? `<a href="${pagePath(0)}">start</a>`
      : match && Number(match[1]) < N
        ? linkedPage(Number(match[1]), N, pagePath)
        : undefined;
  return replyAfter(res, { body, delayMs: DELAY_MS });
};
const PAGES = ['/', ...Array.from({ length: N }, (_, i) => pagePath(i))];
/** robots.txt is archived like a page (its 404 included), though it is not one that --max-pages counts. */
const URLS = ['/robots.txt', ...PAGES];

let server: TestServer;
const tmp = tempDir();
let archives = 0;
const nextArchive = () => tmp.path(`site-${(archives += 1)}.sqlite`);

beforeAll(async () => {
  server = await startServer(site);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

describe('crawl() from code', () => {
  it('emits notices, started, then one event per URL finished, and resolves with the run report', async () => {
    const db = nextArchive();
    const run = crawl({ roots: [server.url], db, concurrency: 4 });
    const [events, report] = await Promise.all([lastValueFrom(run.events.pipe(toArray())), run.done]);

    const types = events.map((event) => event.type).filter((type) => type !== 'progress');
    expect(types.slice(0, 2)).toEqual(['notice', 'started']);
    expect(events[0]).toEqual({ type: 'notice', notice: { kind: 'starting', roots: [server.url], concurrency: 4 } });
    const fetched = events.flatMap((event) => (event.type === 'fetched' ? [new URL(event.report.url).pathname] : []));
    expect(fetched.sort()).toEqual([...URLS].sort());
    expect(events.filter((event) => event.type === 'failed' || event.type === 'skipped')).toEqual([]);

    expect(report).toMatchObject({
      archive: db,
      endedBy: 'finished',
      runs: 1,
      pagesFetched: PAGES.length,
      roots: [{ url: server.url, state: 'done' }],
    });
    expect(report.urls).toMatchObject({ done: URLS.length, queued: 0, fetching: 0 });
    const reader = openArchive(db);
    try {
      expect(reader.report().urls).toEqual(report.urls);
      expect(reader.page(`${server.url}p/3`)?.body.toString()).toContain('page 3');
    } finally {
      reader.close();
    }
  });

  it('stop() ends the run with requests in flight committed; resume() finishes without fetching a committed page again', async () => {
    const db = nextArchive();
    const before = new Map(PAGES.map((path) => [path, server.hitCount(path)]));
    const run = crawl({ roots: [server.url], db, concurrency: 2 });
    let fetched = 0;
    run.events.subscribe((event) => {
      if (event.type === 'fetched' && (fetched += 1) === 6) run.stop();
    });
    const stopped = await run.done;
    expect(stopped.endedBy).toBe('interrupted');
    expect(stopped.urls.done).toBeLessThan(URLS.length);
    expect(stopped.urls.fetching).toBe(0);

    const resumed = resume({ db });
    const notices = lastValueFrom(resumed.events.pipe(toArray()));
    const finished = await resumed.done;
    expect(finished.endedBy).toBe('finished');
    expect(finished.urls).toMatchObject({ done: URLS.length, queued: 0 });
    expect((await notices)[0]).toEqual({
      type: 'notice',
      notice: { kind: 'resuming', done: stopped.urls.done, queued: stopped.urls.queued, requeued: 0 },
    });
    for (const path of PAGES) expect(server.hitCount(path) - before.get(path)!, path).toBe(1);
  });

  it('rejects bad options with InvalidOptionError before any file is created', async () => {
    const dir = tmp.path('never');
    const db = `${dir}-site.sqlite`;
    const cases: [Record<string, unknown>, string][] = [
      [{ concurrency: 0 }, 'concurrency'],
      [{ exclude: ['('] }, 'exclude'],
      [{ requisites: false, requisitesAnyHost: true }, 'requisitesAnyHost'],
      [{ maxPgaes: 3 }, 'maxPgaes'],
      [{ headers: { host: 'elsewhere' } }, 'headers'],
      [{ cookies: ['no pair'] }, 'cookies'],
      [{ proxy: 'ftp://proxy' }, 'proxy'],
      [{ roots: [] }, 'roots'],
    ];
    for (const [bad, option] of cases) {
      const run = crawl({ roots: [server.url], db, ...bad } as Parameters<typeof crawl>[0]);
      await expect(run.done, option).rejects.toMatchObject({ name: 'InvalidOptionError', code: 'INVALID_OPTION', option });
    }
    await expect(crawl({ roots: ['example'], db }).done).rejects.toMatchObject({ code: 'INVALID_ROOT' });
    await expect(crawl({ roots: [server.url], db: ':memory:' }).done).rejects.toMatchObject({ code: 'NO_ARCHIVE_FILE' });
    expect(existsSync(db)).toBe(false);
    expect(readdirSync(tmp.dir).filter((name) => name.startsWith('never'))).toEqual([]);
  });

  it('rejects with ArchiveBusyError while another crawl writes the archive, and leaves that crawl alone', async () => {
    const db = nextArchive();
    const first = crawl({ roots: [server.url], db, concurrency: 1 });
    let started = false;
    first.events.subscribe((event) => {
      if (event.type === 'started') started = true;
    });
    await waitFor('the first crawl to start', () => started);
    const second = crawl({ roots: [server.url], db });
    await expect(second.done).rejects.toMatchObject({ name: 'ArchiveBusyError', code: 'ARCHIVE_BUSY' });
    first.stop();
    await expect(first.done).resolves.toMatchObject({ endedBy: 'interrupted' });
    await expect(resume({ db }).done).resolves.toMatchObject({ endedBy: 'finished', urls: expect.objectContaining({ done: URLS.length }) });
  });

  it('recrawl() crawls a finished archive again, keeping every capture; an unfinished one is refused until resumed', async () => {
    const db = nextArchive();
    const first = crawl({ roots: [server.url], db, concurrency: 1 });
    let started = false;
    first.events.subscribe((event) => {
      if (event.type === 'started') started = true;
    });
    await waitFor('the crawl to start', () => started);
    first.stop();
    await first.done;
    await expect(recrawl({ db }).done).rejects.toMatchObject({ name: 'UnfinishedCrawlError', code: 'CRAWL_UNFINISHED' });
    await resume({ db }).done;
    const again = await recrawl({ db, concurrency: 4 }).done;
    expect(again).toMatchObject({ endedBy: 'finished', urls: expect.objectContaining({ done: URLS.length }) });
    expect(readArchive(db, 'SELECT crawl, count(*) AS n FROM captures GROUP BY crawl ORDER BY crawl')).toEqual([
      { crawl: 1, n: URLS.length },
      { crawl: 2, n: URLS.length },
    ]);
    expect(readArchive(db, "SELECT count(*) AS n FROM changes WHERE change <> 'unchanged'")).toEqual([{ n: 0 }]);
  });
});
