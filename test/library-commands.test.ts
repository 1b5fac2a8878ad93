import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  archiveReport,
  crawl,
  diffCrawls,
  diffPage,
  exportArchive,
  importWarcs,
  InvalidOptionError,
  prepareRun,
  queryArchive,
  recrawl,
  reindex,
  retry,
  searchArchive,
  startRun,
  unlock,
  type ExportProgress,
} from '../src/index.js';
import { tempDir } from './support/archive.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// What every command of the command line does, done from code through the package door: typed inputs and
// results, progress told to callbacks, interruption through an AbortSignal.

let server: TestServer;
const tmp = tempDir();
let db: string;

beforeAll(async () => {
  // /about changes once: the first two crawls of it (the archive below, and the first crawl of the recrawl test) read the first words.
  server = await startServer(
    routes({
      '/': html('<a href="/about">about</a> a crawler in a library', 'home'),
      '/about': (hit) => html(hit <= 2 ? 'first words' : 'second words', 'about'),
      '/gone': { status: 500, body: 'down' },
    }),
  );
  db = tmp.path('site.sqlite');
  await crawl({ roots: [server.url], db, concurrency: 2 }).done;
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

describe('the library does what each command does', () => {
  it("archiveReport() and queryArchive() read the archive: its report, and one statement's rows", async () => {
    expect(archiveReport(db)).toMatchObject({ pagesFetched: 2, urls: { done: 3 } });
    const columns: string[][] = [];
    const rows: unknown[][] = [];
    const end = await queryArchive({
      db,
      sql: 'select url from pages order by url',
      onColumns: (names) => columns.push(names),
      onRows: (batch) => void rows.push(...batch),
    });
    expect(end).toBe('done');
    expect(columns).toEqual([['url']]);
    expect(rows.map(([url]) => new URL(String(url)).pathname)).toEqual(['/', '/about', '/robots.txt']);
  });

  it('searchArchive() finds pages by their words; an aborted query ends as stopped', async () => {
    const found = await searchArchive({ db, query: 'crawler', limit: 10, onHits: () => undefined });
    expect(found).toMatchObject({ end: 'done', found: 1, unindexed: 0 });
    const stopped = new AbortController();
    stopped.abort();
    expect(
      await queryArchive({ db, sql: 'select * from pages', onColumns: () => undefined, onRows: () => undefined, signal: stopped.signal }),
    ).toBe('stopped');
  });

  it('exportArchive() writes a WARC with progress; importWarcs() reads it back into a new archive', async () => {
    const warc = tmp.path('site.warc.gz');
    const progress: ExportProgress[] = [];
    const exported = await exportArchive({ db, warc, onProgress: (step) => progress.push(step) });
    expect(exported).toMatchObject({ responses: 3, written: [warc] });
    expect(progress.length).toBeGreaterThan(0);
    const copy = tmp.path('copy.sqlite');
    const imported = await importWarcs({ files: [warc], db: copy });
    expect(imported).toMatchObject({ files: 1, pages: 3, problems: 0, stopped: false });
    expect(imported.runId).toBeGreaterThan(0);
    expect(archiveReport(copy).imported).toBe(3);
  });

  it('an export aborted by its signal rejects and leaves no file behind', async () => {
    const warc = tmp.path('aborted.warc.gz');
    const stop = new AbortController();
    stop.abort();
    await expect(exportArchive({ db, warc, signal: stop.signal })).rejects.toThrow();
    expect(existsSync(warc)).toBe(false);
  });

  it('reindex() and unlock() answer as the commands print: nothing to index, no lock to clear', async () => {
    expect(await reindex({ db })).toMatchObject({ indexed: 0, total: 0, stopped: false });
    expect(unlock(db)).toEqual({ unlocked: false });
  });

  it('recrawl() then diffCrawls() and diffPage() tell what changed between the crawls', async () => {
    const copy = tmp.path('recrawled.sqlite');
    await crawl({ roots: [server.url], db: copy }).done;
    await recrawl({ db: copy }).done;
    const diff = await diffCrawls({ db: copy });
    expect(diff).toMatchObject({ from: 1, to: 2 });
    expect(diff.changes.find((change) => change.url.endsWith('/about'))?.change).toBe('changed');
    const page = await diffPage({ db: copy, url: `${server.url}about` });
    expect(page.same).toBe(false);
    expect(page.patch).toContain('-first words');
    expect(page.patch).toContain('+second words');
  });
});

describe('one entry for crawl, resume, retry and recrawl', () => {
  it('retry() queues failed URLs again, through startRun({ kind: "retry" })', async () => {
    const failing = tmp.path('failing.sqlite');
    await crawl({ roots: [`${server.url}gone`], db: failing, maxTries: 1 }).done;
    expect(archiveReport(failing).urls.failed).toBe(1);
    const events: string[] = [];
    const run = retry({ db: failing, maxTries: 1 });
    run.events.subscribe((event) => {
      if (event.type === 'notice') events.push(event.notice.kind);
    });
    await run.done;
    expect(events).toContain('failed-requeued');
    const again = startRun({ kind: 'retry', db: failing, options: { maxTries: 1 } });
    expect((await again.done).endedBy).toBe('finished');
  });

  it('checks options and the session once, naming them as the caller spells them, before any file is opened', () => {
    const file = tmp.path('never.sqlite');
    const flags = {
      option: (key: string) => `--${key}`,
      session: (key: string) => ({ headers: '--header', cookies: '--cookie', cookieFile: '--cookies', proxy: '--proxy' })[key]!,
    };
    expect(() => prepareRun({ kind: 'crawl', db: file, roots: [server.url], session: { proxy: 'ftp://proxy' } }, flags)).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        option: 'proxy',
        message: '--proxy must be an http://, https:// or socks5:// URL, got ftp:',
      }),
    );
    expect(() => prepareRun({ kind: 'crawl', db: file, roots: [server.url], session: { headers: ['no colon'] } })).toThrow(
      InvalidOptionError,
    );
    expect(() => prepareRun({ kind: 'crawl', db: file, roots: [server.url], session: { cookieFile: tmp.path('missing.txt') } })).toThrow(
      expect.objectContaining({ option: 'cookieFile', message: expect.stringMatching(/^cookieFile .*missing\.txt: no such file$/) }),
    );
    expect(() => prepareRun({ kind: 'resume', db: file, options: { concurrency: 0 } })).toThrow(
      expect.objectContaining({ option: 'concurrency' }),
    );
    expect(existsSync(file)).toBe(false);
  });

  it('takes headers as wget and curl write them, and a cookies.txt file', async () => {
    const jar = tmp.path('cookies.txt');
    writeFileSync(jar, '# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc\n');
    const run = startRun({
      kind: 'crawl',
      db: tmp.path('session.sqlite'),
      roots: [server.url],
      session: { headers: ['X-Token: 1'], cookieFile: jar },
    });
    expect((await run.done).endedBy).toBe('finished');
  });
});
