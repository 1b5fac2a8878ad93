import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { spawnCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

noticeIfNoBrowser('qa/crawl-qa-interrupt');

// Ctrl-C while `crawl --qa` checks the replay (the crawl itself done): exit 130, the scores so far kept,
// and one line saying how to check the rest.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe.skipIf(!HAS_CHROMIUM)('crawl --qa interrupted in its replay check', () => {
  let site: TestServer;
  beforeAll(async () => {
    site = await startLinkedSite(40);
  });
  afterAll(() => site?.close());

  it('exits 130, keeps the scores stored, and names the command that checks the rest', async () => {
    const db = tmp.path('site.sqlite');
    const child = spawnCli(['crawl', site.url, '--db', db, '--qa', '-c', '2']);
    await waitFor(
      'the replay check to score a page',
      () => {
        try {
          return readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM qa')[0]!.n > 0;
        } catch {
          return false;
        }
      },
      120_000,
      () => child.output().stderr,
    );
    child.kill('SIGINT');
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(130);
    expect(end.stderr).toMatch(
      new RegExp(`qa stopped after \\d+ of 41 pages; crawlite qa ${db.replace(/[.]/g, '\\.')} checks them all\\n$`),
    );
    const kept = readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM qa')[0]!.n;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(41);
    // The crawl itself was done: every page is stored.
    expect(readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE kind = 'page'")[0]!.n).toBe(41);
  }, 180_000);
});
