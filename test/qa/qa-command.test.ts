import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { execCli } from '../support/cli.js';
import { startQaSite, type QaSite } from '../support/qa-site.js';

noticeIfNoBrowser('qa/qa-command');

// A site crawled with --browser, then `crawlite qa`: the page that replays as captured scores high,
// the one whose script asks for what replay cannot give scores lower, with its failed request counted.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

interface QaViewRow {
  url: string;
  fetched_at: string;
  pixel_diff: number | null;
  text_match: number | null;
  resources_loaded: number;
  resources_failed: number;
  score: number;
  error: string | null;
}

describe.skipIf(!HAS_CHROMIUM)('crawlite qa', () => {
  let site: QaSite;
  const db = tmp.path('site.sqlite');
  let run: { code: number; stdout: string; stderr: string };
  let rows: QaViewRow[];
  beforeAll(async () => {
    site = await startQaSite();
    const crawl = await execCli(['crawl', site.url, '--db', db, '--browser', '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
    run = await execCli(['qa', db]);
    rows = readArchive<QaViewRow>(db, 'SELECT * FROM qa');
  }, 180_000);
  afterAll(() => site?.close());

  it('exits 0 and scores each page of the archive, and no other URL', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(rows.map((row) => new URL(row.url).pathname).sort()).toEqual(['/', '/fragile']);
    for (const row of rows) expect(row.error).toBeNull();
  });

  it('a page that replays as captured: its screenshot matches, its text matches, nothing failed', () => {
    const steady = rows.find((row) => row.url === site.url)!;
    expect(steady.pixel_diff).not.toBeNull();
    expect(steady.pixel_diff!).toBeLessThan(0.01);
    expect(steady.text_match).toBe(1);
    expect(steady.resources_failed).toBe(0);
    // The stylesheet, the image and the document itself.
    expect(steady.resources_loaded).toBeGreaterThanOrEqual(3);
    expect(steady.score).toBeGreaterThan(0.95);
  });

  it('a page whose script asks for what the archive does not hold: its picture and text differ, the request failed, and it scores lower', () => {
    const fragile = rows.find((row) => row.url === `${site.url}fragile`)!;
    expect(fragile.pixel_diff!).toBeGreaterThan(0.05);
    expect(fragile.text_match!).toBeLessThan(0.5);
    expect(fragile.resources_failed).toBeGreaterThanOrEqual(1);
    const steady = rows.find((row) => row.url === site.url)!;
    expect(fragile.score).toBeLessThan(steady.score - 0.2);
    // The view lists the worst first.
    expect(rows[0]!.url).toBe(`${site.url}fragile`);
  });

  it('prints a summary line with the counts, and the worst pages, worst first', () => {
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^qa: 2 pages checked of 2, mean score \d\.\d\d, median \d\.\d\d, 1 below 0\.8 \(\d+\.\d s\)$/);
    expect(lines[1]).toBe('worst:');
    expect(lines[2]).toContain(`${site.url}fragile`);
    expect(lines[2]).toMatch(/of pixels differ, text match 0\.\d\d, [1-9]\d* of \d+ resources failed/);
    expect(lines[3]).toContain(site.url);
  });

  it('checking again replaces the scores: one row per capture', async () => {
    const again = await execCli(['qa', db, '-q']);
    expect(again.code, again.stderr).toBe(0);
    // -q: errors only.
    expect(again.stdout + again.stderr).toBe('');
    const after = readArchive<{ url: string; n: number }>(db, 'SELECT url, count(*) AS n FROM qa GROUP BY url ORDER BY url');
    expect(after).toEqual([
      { url: site.url, n: 1 },
      { url: `${site.url}fragile`, n: 1 },
    ]);
  }, 120_000);
});
