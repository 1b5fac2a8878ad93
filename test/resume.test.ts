import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// Each test brings its own server (so hit counts start at zero) and its own
// archive, and builds the state it needs: the tests pass in any order.
const PAGES = 40;
const tmp = tempDir();
let server: TestServer;
let db: string;
let archives = 0;

beforeEach(async () => {
  const table = Object.fromEntries(
    Array.from({ length: PAGES }, (_, i) => [`/p${i}`, html(`<a href="/p${(i + 1) % PAGES}">next</a> <a href="/skip/${i}">skip</a>`)]),
  );
  server = await startServer(routes({ '/': html('<a href="/p0">start</a>'), ...table }, 15));
  archives += 1;
  db = tmp.path(`resume-${archives}.sqlite`);
});

afterEach(async () => {
  await server.close();
});

afterAll(() => {
  tmp.cleanup();
});

const pageCount = (path = db) => readArchive<{ n: number }>(path, "SELECT count(*) AS n FROM pages WHERE kind = 'page'")[0]!.n;

/** A crawl at -c 2 excluding /skip/, stopped by Ctrl-C once a few pages are in (bounded: at most 10 s of polling). */
function interruptedCrawl() {
  return runCli(['crawl', server.url, '--db', db, '-c', '2', '--exclude', '/skip/'], {
    onStart: (interrupt) => {
      const started = Date.now();
      const poll = setInterval(() => {
        if (server.totalHits() >= 6 || Date.now() - started > 10_000) {
          clearInterval(poll);
          interrupt();
        }
      }, 5);
    },
  });
}

/** The interrupted crawl, then resumed to its end with -c 3. */
async function resumedCrawl() {
  const stopped = await interruptedCrawl();
  expect(stopped.code, stopped.stderr).toBe(130);
  return runCli(['resume', db, '-c', '3']);
}

describe('stopping and resuming', () => {
  it('stops on Ctrl-C: no new claims, requests in flight finish and commit, exit 130', async () => {
    const result = await interruptedCrawl();
    expect(result.code).toBe(130);
    expect(result.stdout).toMatch(/URLs\s+\d+ seen/);
    expect(result.stderr).toContain(`crawlite resume ${db}`);
    const stored = pageCount();
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(PAGES + 1);
    // A graceful stop lets requests finish: nothing is left in flight, every hit was stored.
    expect(readArchive(db, "SELECT count(*) AS n FROM urls WHERE state = 'fetching'")).toEqual([{ n: 0 }]);
    // robots.txt came first, and is stored too.
    expect(server.totalHits()).toBe(stored + 1);
  });

  it('resumes with the stored roots and options, saying which ones the command line changes, as flags', async () => {
    const result = await resumedCrawl();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('stored for this archive from now on: --concurrency 3 (was 2)');
    expect(pageCount()).toBe(PAGES + 1);
    // The stored --exclude still applies, and no page was fetched twice.
    expect([...server.hits.keys()].some((path) => path.startsWith('/skip/'))).toBe(false);
    for (const [path, hits] of server.hits) expect(hits, path).toBe(1);
  });

  it('stores an option given to resume: later resumes use it', async () => {
    expect((await resumedCrawl()).code).toBe(0);
    const [run] = readArchive<{ options: string }>(db, 'SELECT options FROM run ORDER BY id DESC LIMIT 1');
    expect(JSON.parse(run!.options)).toMatchObject({ concurrency: 3 });
    const [meta] = readArchive<{ value: string }>(db, "SELECT value FROM meta WHERE key = 'options'");
    expect(JSON.parse(meta!.value)).toMatchObject({ concurrency: 3, exclude: ['/skip/'] });
  });

  it('crawling the same roots into a finished archive fetches nothing again', async () => {
    expect((await resumedCrawl()).code).toBe(0);
    const before = server.totalHits();
    const result = await runCli(['crawl', server.url, '--db', db]);
    expect(result.code).toBe(0);
    expect(server.totalHits()).toBe(before);
  });
});

describe('a larger --max-pages given to resume', () => {
  it('is stored, so a plain resume names the limit the archive is at, and fetches nothing', async () => {
    const first = await runCli(['crawl', server.url, '--db', db, '--max-pages', '5', '--exclude', '/skip/']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('stopped at --max-pages 5;');

    const raised = await runCli(['resume', db, '--max-pages', '10']);
    expect(raised.code, raised.stderr).toBe(0);
    expect(raised.stderr).toContain('stored for this archive from now on: --max-pages 10 (was 5)');
    expect(raised.stderr).toContain('stopped at --max-pages 10;');
    const pages = pageCount();
    expect(pages).toBeGreaterThan(5);

    const plain = await runCli(['resume', db]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('--max-pages 5');
    expect(plain.stderr).toContain('stopped at --max-pages 10;');
    expect(pageCount()).toBe(pages);
  });
});
