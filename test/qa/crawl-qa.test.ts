import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { execCli } from '../support/cli.js';
import { startQaSite, type QaSite } from '../support/qa-site.js';

noticeIfNoBrowser('qa/crawl-qa');

// `crawl --browser --qa` checks the replay of every page once the crawl ends: the scores are stored and
// the summary printed after the crawl's report, with no second command.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe.skipIf(!HAS_CHROMIUM)('crawl --browser --qa', () => {
  let site: QaSite;
  const db = tmp.path('site.sqlite');
  let run: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    site = await startQaSite();
    run = await execCli(['crawl', site.url, '--db', db, '--browser', '--qa']);
  }, 180_000);
  afterAll(() => site?.close());

  it('stores a score for each page the crawl stored, the fragile one worst', () => {
    expect(run.code, run.stderr).toBe(0);
    const rows = readArchive<{ url: string; score: number; resources_failed: number; pixel_diff: number | null }>(
      db,
      'SELECT url, score, resources_failed, pixel_diff FROM qa ORDER BY score',
    );
    expect(rows.map((row) => row.url)).toEqual([`${site.url}fragile`, site.url]);
    expect(rows[0]!.resources_failed).toBeGreaterThanOrEqual(1);
    expect(rows[1]!.score).toBeGreaterThan(0.95);
    // A screenshot to compare with: the crawl rendered the pages.
    expect(rows.every((row) => row.pixel_diff !== null)).toBe(true);
  });

  it('says it is checking, then prints the summary after the crawl report', () => {
    expect(run.stderr).toContain('qa: replaying 2 pages of');
    const at = run.stdout.indexOf('qa: 2 pages checked of 2');
    expect(at).toBeGreaterThan(0);
    expect(run.stdout.slice(at)).toContain(`${site.url}fragile`);
  });

  it('keeps the option with the crawl, so a resume checks again', () => {
    const [{ options }] = readArchive<{ options: string }>(db, 'SELECT options FROM run ORDER BY id DESC LIMIT 1') as [{ options: string }];
    expect(JSON.parse(options).qa).toBe(true);
  });
});
