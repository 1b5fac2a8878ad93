import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrity, readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { execCli, spawnCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

noticeIfNoBrowser('qa/qa-interrupt');

// Ctrl-C stops qa after the pages being replayed: exit 130, one line saying how far it got, the scores
// stored so far kept, the archive intact, and a second run checks every page.

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const PAGES = 40;
/** The index, and its pages. */
const CHECKED = PAGES + 1;

describe.skipIf(!HAS_CHROMIUM)('crawlite qa interrupted', () => {
  let site: TestServer;
  const db = tmp.path('site.sqlite');
  beforeAll(async () => {
    site = await startLinkedSite(PAGES);
    const crawl = await execCli(['crawl', site.url, '--db', db, '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
  }, 60_000);
  afterAll(() => site?.close());

  const scored = () => readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM qa')[0]!.n;

  it('keeps what it scored, and a second run scores every page', async () => {
    const child = spawnCli(['qa', db, '-c', '1']);
    await waitFor('a page scored', () => {
      try {
        return scored() > 0;
      } catch {
        // The table comes with the migration qa applies when it opens the archive.
        return false;
      }
    }, 60_000, () => child.output().stderr);
    child.kill('SIGINT');
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(130);
    expect(end.stderr).toMatch(/crawlite: qa interrupted after \d+ of 41 pages; the scores stored stay, run it again to check all\n$/);
    const kept = scored();
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(CHECKED);
    expect(integrity(db)).toBe('ok');

    const again = await execCli(['qa', db, '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(scored()).toBe(CHECKED);
  }, 180_000);
});
