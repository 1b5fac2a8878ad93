import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { execCli } from '../support/cli.js';
import { startQaSite, type QaSite } from '../support/qa-site.js';

noticeIfNoBrowser('qa/qa-plain-crawl');

// An archive a plain crawl made has no screenshots: qa scores its pages on their text and the requests
// that failed. A page that cannot be measured within --page-timeout is stored with why, scored 0.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

interface Row {
  url: string;
  pixel_diff: number | null;
  text_match: number | null;
  resources_failed: number;
  score: number;
  error: string | null;
}

describe.skipIf(!HAS_CHROMIUM)('crawlite qa on a plain crawl', () => {
  let site: QaSite;
  const db = tmp.path('plain.sqlite');
  beforeAll(async () => {
    site = await startQaSite();
    const crawl = await execCli(['crawl', site.url, '--db', db, '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
  }, 60_000);
  afterAll(() => site?.close());

  it('scores on text and resources alone: no pixel measure, the page whose script fails in replay lower', async () => {
    const run = await execCli(['qa', db, '-q']);
    expect(run.code, run.stderr).toBe(0);
    const rows = readArchive<Row>(db, 'SELECT url, pixel_diff, text_match, resources_failed, score, error FROM qa ORDER BY score');
    expect(rows.map((row) => row.url)).toEqual([`${site.url}fragile`, site.url]);
    for (const row of rows) {
      expect(row.pixel_diff).toBeNull();
      expect(row.error).toBeNull();
      // The crawl read the HTML as served, without its script's words, and so does the replay's text.
      expect(row.text_match).toBe(1);
    }
    expect(rows[1]!.score).toBe(1);
    expect(rows[0]!.resources_failed).toBeGreaterThanOrEqual(1);
    expect(rows[0]!.score).toBeLessThan(1);
  }, 120_000);

  it('stores a page past --page-timeout with the reason and a score of 0, and goes on to the next', async () => {
    const run = await execCli(['qa', db, '--page-timeout', '1']);
    expect(run.code, run.stderr).toBe(0);
    const rows = readArchive<Row>(db, 'SELECT url, score, error FROM qa ORDER BY url');
    expect(rows).toEqual([
      { url: site.url, score: 0, error: 'replay did not finish within 1 ms' },
      { url: `${site.url}fragile`, score: 0, error: 'replay did not finish within 1 ms' },
    ]);
    expect(run.stdout).toMatch(/^qa: 2 pages checked of 2, mean score 0\.00, median 0\.00, 2 below 0\.8, 2 not measured/);
    expect(run.stdout).toContain(`0.00  ${site.url}fragile  (replay did not finish within 1 ms)`);
  }, 120_000);
});
