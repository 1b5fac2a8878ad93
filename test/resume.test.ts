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

  it('resumes with the stored roots and options, saying which ones the command line overrides', async () => {
    const result = await runCli(['resume', db, '-c', '3']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('override the stored ones for this run: concurrency=3');
    expect(pageCount()).toBe(PAGES + 1);
    // The stored --exclude still applies, and no page was fetched twice.
    expect([...server.hits.keys()].some((path) => path.startsWith('/skip/'))).toBe(false);
    for (const [path, hits] of server.hits) expect(hits, path).toBe(1);
  });

  it('does not store an override: a later resume uses the stored options again', () => {
    const [run] = readArchive<{ options: string }>(db, 'SELECT options FROM run ORDER BY id DESC LIMIT 1');
    expect(JSON.parse(run!.options)).toMatchObject({ concurrency: 3 });
    const [meta] = readArchive<{ value: string }>(db, "SELECT value FROM meta WHERE key = 'options'");
    expect(JSON.parse(meta!.value)).toMatchObject({ concurrency: 2, exclude: ['/skip/'] });
  });

  it('crawling the same roots into a finished archive fetches nothing again', async () => {
    const before = server.totalHits();
    const result = await runCli(['crawl', server.url, '--db', db]);
    expect(result.code).toBe(0);
    expect(server.totalHits()).toBe(before);
  });
});
