import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { execCli } from '../support/cli.js';
import { startQaSite, type QaSite } from '../support/qa-site.js';
import { get, startServe } from '../support/serve.js';

noticeIfNoBrowser('qa/qa-ui-page');

// The QA page of `crawlite serve`: the summary of the scores, then the pages worst first, each linked to
// its replay; the navigation bar links to it.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe.skipIf(!HAS_CHROMIUM)('the QA page', () => {
  let site: QaSite;
  const db = tmp.path('site.sqlite');
  const empty = tmp.path('plain.sqlite');
  let serving: Awaited<ReturnType<typeof startServe>> | undefined;
  beforeAll(async () => {
    site = await startQaSite();
    const crawl = await execCli(['crawl', site.url, '--db', db, '--browser', '--qa', '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
    const plain = await execCli(['crawl', site.url, '--db', empty, '-q']);
    expect(plain.code, plain.stderr).toBe(0);
    serving = await startServe(db);
  }, 180_000);
  afterAll(async () => {
    await serving?.stop();
    await site?.close();
  });

  it('lists the pages worst first, each linked to its replay at its capture time', async () => {
    const page = await get(serving!.ui, '/qa');
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/id="qa-summary">2 pages checked: mean score \d\.\d\d, median \d\.\d\d, 1 below 0\.8/);
    const links = [...page.body.matchAll(/<a class="qa-replay" href="([^"]+)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
    expect(links).toHaveLength(2);
    expect(links[0]).toMatch(new RegExp(`^/replay\\?url=${encodeURIComponent(`${site.url}fragile`).replace(/[.?]/g, '\\$&')}&ts=\\d{14}$`));
    expect(links[1]).toMatch(new RegExp(`^/replay\\?url=${encodeURIComponent(site.url).replace(/[.?]/g, '\\$&')}&ts=\\d{14}$`));
    // The worst row is marked as below the threshold; the scores go up down the table.
    const scores = [...page.body.matchAll(/<td class="num qa-score">([\d.]+)<\/td>/g)].map((match) => Number(match[1]));
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    expect(scores[0]).toBeLessThan(0.8);
    // The replay link opens: the frame page of that capture.
    const replay = await get(serving!.ui, links[0]!);
    expect(replay.status).toBe(200);
    expect(replay.body).toContain('id="replay"');
  });

  it('is linked from the navigation bar', async () => {
    const overview = await get(serving!.ui, '/');
    expect(overview.body).toContain('<a href="/qa">QA</a>');
  });

  it('says how to get scores when none are stored', async () => {
    const other = await startServe(empty);
    try {
      const page = await get(other.ui, '/qa');
      expect(page.status).toBe(200);
      expect(page.body).toContain('id="qa-none"');
      expect(page.body).toContain('crawlite qa');
    } finally {
      await other.stop();
    }
  });
});
