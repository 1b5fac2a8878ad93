import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CrawlRecord } from '../../src/storage/crawl-state/crawl-record.js';
import { closeArchive, openArchive } from '../../src/storage/archive/open-archive.js';
import { CrawlStateThread, crawlStateThreadsRunning } from '../../src/storage/crawl-state/crawl-state-thread.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import { readArchive, tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';
import { mostDuring, waitFor } from '../support/wait.js';

// A crawl claims and commits on a thread of its own, over a second connection: the thread ends with the
// crawl, its failures reach the crawl as the sink's own, and the archive still leaves WAL mode at the end.

const PAGES = 20;
const tmp = tempDir();
let server: TestServer;

beforeAll(async () => {
  const pages: Record<string, ReturnType<typeof html>> = {
    '/': html(Array.from({ length: PAGES }, (_, i) => `<a href="/p/${i}">${i}</a>`).join(' ')),
  };
  for (let i = 0; i < PAGES; i += 1) pages[`/p/${i}`] = html(`<title>page ${i}</title><p>words of page ${i}</p>`);
  server = await startServer(routes(pages));
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

function archiveWithRun(name: string) {
  const path = tmp.path(name);
  const db = openArchive(path, 'create');
  const runId = new CrawlRecord(db).startRun({}, new Date());
  return { path, db, runId };
}

it('a crawl starts a thread for its frontier and sink, ends it when it ends, and leaves the archive as one file', async () => {
  expect(crawlStateThreadsRunning()).toBe(0);
  const db = tmp.path('crawl.sqlite');
  const { result, most } = await mostDuring(() => runCli(['crawl', server.url, '--db', db, '-c', '4', '-q']), crawlStateThreadsRunning);
  expect(result.code).toBe(0);
  expect(most).toBe(1);
  await waitFor('the crawl-state thread to end', () => crawlStateThreadsRunning() === 0, 20_000);
  // Its connection was closed before the archive left WAL mode: no side file is left.
  expect(existsSync(`${db}-wal`)).toBe(false);
  const [{ n }] = readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE kind = 'page' AND status = 200");
  expect(n).toBe(PAGES + 1);
  const [{ indexed }] = readArchive<{ indexed: number }>(
    db,
    "SELECT count(*) AS indexed FROM page_text_fts WHERE page_text_fts MATCH 'words'",
  );
  expect(indexed).toBe(PAGES);
});

it("a failure on the thread reaches the caller with SQLite's code", async () => {
  const { path, db, runId } = archiveWithRun('refused.sqlite');
  new SqliteFrontier(db).addRoots([{ url: 'http://site.test/a', key: 'http://site.test/a', origin: 'http://site.test' }]);
  const thread = new CrawlStateThread({ path, runId, crawl: 1, limits: {} });
  try {
    const [claim] = await thread.frontier.claimFrom('http://site.test', 1);
    // A state the url table's CHECK refuses.
    await expect(thread.sink.commitAll([{ claim: claim!, state: 'bogus' as 'done', tries: 1, discovered: [] }])).rejects.toMatchObject({
      code: expect.stringMatching(/^SQLITE_CONSTRAINT/),
    });
    // The thread goes on: the same claim commits once the outcome is right.
    await expect(
      thread.sink.commitAll([{ claim: claim!, state: 'failed', tries: 1, error: { code: 'x', message: 'x' }, discovered: [] }]),
    ).resolves.toEqual([{ newUrls: 0 }]);
  } finally {
    await thread.close();
  }
  expect(readArchive<{ state: string }>(path, "SELECT state FROM url WHERE url = 'http://site.test/a'")).toEqual([{ state: 'failed' }]);
  closeArchive(db);
});

it('an archive the thread cannot open fails every call with a write error that says what to do', async () => {
  const thread = new CrawlStateThread({ path: tmp.path('missing/none.sqlite'), runId: 1, crawl: 1, limits: {} });
  try {
    await expect(thread.frontier.queuedOrigins()).rejects.toMatchObject({
      code: 'ARCHIVE_WRITE',
      message: expect.stringContaining('run resume'),
    });
    await expect(thread.sink.commitAll([])).rejects.toMatchObject({ code: 'ARCHIVE_WRITE' });
  } finally {
    await thread.close();
  }
});

it('a thread closed refuses what comes after, and lets the archive leave WAL mode', async () => {
  const { path, db, runId } = archiveWithRun('closed.sqlite');
  const thread = new CrawlStateThread({ path, runId, crawl: 1, limits: {} });
  expect(await thread.frontier.queuedOrigins()).toEqual([]);
  await thread.close();
  await expect(thread.frontier.pagesFetched()).rejects.toMatchObject({ code: 'CRAWL_STATE_THREAD' });
  closeArchive(db);
  expect(existsSync(`${path}-wal`)).toBe(false);
});

it('closing while a call is under way keeps the process alive until the thread has ended', () => {
  // In a process of its own: were nothing left to keep it alive, Node would end it with code 13 (an unfinished await).
  const dist = new URL('../../dist/', import.meta.url).href;
  const script = `
    const { openArchive } = await import('${dist}storage/archive/open-archive.js');
    const { CrawlRecord } = await import('${dist}storage/crawl-state/crawl-record.js');
    const { CrawlStateThread } = await import('${dist}storage/crawl-state/crawl-state-thread.js');
    const path = ${JSON.stringify(tmp.path('closing.sqlite'))};
    const db = openArchive(path, 'create');
    const runId = new CrawlRecord(db).startRun({}, new Date());
    const thread = new CrawlStateThread({ path, runId, crawl: 1, limits: {} });
    const answer = thread.frontier.queuedOrigins();
    await thread.close();
    console.log(JSON.stringify(await answer));`;
  const file = tmp.path('closing.mjs');
  writeFileSync(file, script);
  const run = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout.trim()).toBe('[]');
});
