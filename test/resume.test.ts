import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

const PAGES = 40;
let server: TestServer;
const tmp = tempDir();
const db = tmp.path('resume.sqlite');

beforeAll(async () => {
  const table = Object.fromEntries(
    Array.from({ length: PAGES }, (_, i) => [`/p${i}`, html(`<a href="/p${(i + 1) % PAGES}">next</a> <a href="/skip/${i}">skip</a>`)]),
  );
  server = await startServer(routes({ '/': html('<a href="/p0">start</a>'), ...table }, 15));
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const pageCount = () => readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE kind = 'page'")[0]!.n;

describe('stopping and resuming', () => {
  it('stops on Ctrl-C: no new claims, requests in flight finish and commit, exit 130', async () => {
    const result = await runCli(['crawl', server.url, '--db', db, '-c', '2', '--exclude', '/skip/'], {
      // Ctrl-C once a few pages are in (bounded: at most 10 s of polling).
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
    const result = await runCli(['resume', db, '-c', '3']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('stored for this archive from now on: --concurrency 3 (was 2)');
    expect(pageCount()).toBe(PAGES + 1);
    // The stored --exclude still applies, and no page was fetched twice.
    expect([...server.hits.keys()].some((path) => path.startsWith('/skip/'))).toBe(false);
    for (const [path, hits] of server.hits) expect(hits, path).toBe(1);
  });

  it('stores an option given to resume: later resumes use it', () => {
    const [run] = readArchive<{ options: string }>(db, 'SELECT options FROM run ORDER BY id DESC LIMIT 1');
    expect(JSON.parse(run!.options)).toMatchObject({ concurrency: 3 });
    const [meta] = readArchive<{ value: string }>(db, "SELECT value FROM meta WHERE key = 'options'");
    expect(JSON.parse(meta!.value)).toMatchObject({ concurrency: 3, exclude: ['/skip/'] });
  });

  it('crawling the same roots into a finished archive fetches nothing again', async () => {
    const before = server.totalHits();
    const result = await runCli(['crawl', server.url, '--db', db]);
    expect(result.code).toBe(0);
    expect(server.totalHits()).toBe(before);
  });
});

describe('a larger --max-pages given to resume', () => {
  const limited = tmp.path('limited.sqlite');

  it('is stored, so a plain resume names the limit the archive is at, and fetches nothing', async () => {
    const first = await runCli(['crawl', server.url, '--db', limited, '--max-pages', '5', '--exclude', '/skip/']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('stopped at --max-pages 5;');

    const raised = await runCli(['resume', limited, '--max-pages', '10']);
    expect(raised.code, raised.stderr).toBe(0);
    expect(raised.stderr).toContain('stored for this archive from now on: --max-pages 10 (was 5)');
    expect(raised.stderr).toContain('stopped at --max-pages 10;');
    const pages = readArchive<{ n: number }>(limited, "SELECT count(*) AS n FROM pages WHERE kind = 'page'")[0]!.n;
    expect(pages).toBeGreaterThan(5);

    const plain = await runCli(['resume', limited]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('--max-pages 5');
    expect(plain.stderr).toContain('stopped at --max-pages 10;');
    expect(readArchive<{ n: number }>(limited, "SELECT count(*) AS n FROM pages WHERE kind = 'page'")[0]!.n).toBe(pages);
  });
});
