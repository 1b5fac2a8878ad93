import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser } from '../support/browser.js';
import { spawnCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import { addUrls, controlRequests } from '../support/live-rows.js';
import type { TestServer } from '../support/test-server.js';
import { sleep, waitFor } from '../support/wait.js';

// The live page in Chromium beside a real crawl process: it follows the crawl without being reloaded,
// and steers it. Pause pressed in the page pauses the crawl (nothing more is stored), a setting and an
// exclusion are applied by the crawl (the queued URLs that match skipped, then queued again when the
// exclusion is removed), Resume sets it going; each outcome shows on the page as the crawl records it.

noticeIfNoBrowser('serve/live-page-browser');

/** One page at a time, 150 ms each: a crawl of half a minute, far longer than the test needs it running. */
const PAGES = 200;

describe.skipIf(!HAS_CHROMIUM)('the live page', () => {
  const tmp = tempDir();
  const db = tmp.path('live.sqlite');
  let site: TestServer;
  let crawl: ReturnType<typeof spawnCli>;
  let serving: ServingArchive;
  let browser: Browser;
  let page: Page;

  const stored = () => readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM response')[0]!.n;

  beforeAll(async () => {
    site = await startLinkedSite(PAGES, 150);
    crawl = spawnCli(['crawl', site.url, '--db', db, '-q', '-c', '1', '--delay', '0']);
    await waitFor(
      'the crawl to store its first pages',
      () => {
        try {
          return stored() >= 2;
        } catch {
          return false;
        }
      },
      20_000,
      () => crawl.output().stderr,
    );
    serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await serving?.close();
    crawl?.kill('SIGKILL');
    await crawl?.exited;
    await site?.close();
    tmp.cleanup();
  });

  const text = (selector: string) => page.locator(selector).textContent();
  const recentUrls = () => page.locator('#live-recent tbody td.url').allTextContents();
  /** Presses a control and waits for the crawl to apply the request it sent: its row, once applied. */
  async function press(selector: string) {
    const before = controlRequests(db).length;
    await page.locator(selector).click();
    await waitFor('the request to be sent', () => controlRequests(db).length === before + 1);
    const sent = controlRequests(db).at(-1)!;
    await waitFor('the crawl to apply it', () => controlRequests(db).at(-1)!.applied_at !== null, 15_000);
    const applied = controlRequests(db).at(-1)!;
    // The page shows what the crawl recorded, on its own.
    await expect.poll(() => text(`#live-requests tr[data-id="${sent.id}"] td.outcome`), { timeout: 15_000 }).toBe(applied.outcome);
    return applied;
  }

  it('follows a running crawl without a reload: its state, its requests in flight, the pages it stores', async () => {
    await page.goto(`${serving.uiUrl}live`);
    await page.evaluate("window.loadedOnce = 'still this document'");
    await expect.poll(() => page.locator('#live-state').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
    expect(await text('#live-state')).toMatch(new RegExp(`^Running \\(pid ${crawl.pid}, since `));
    expect(await text('#live-in-flight')).toMatch(/^[01]$/);
    expect(await text('#live-settings')).toMatch(/^concurrency 1, per host 1, /);
    const first = await recentUrls();
    expect(first.length).toBeGreaterThan(0);
    await expect.poll(async () => (await recentUrls())[0] !== first[0], { timeout: 15_000 }).toBe(true);
    await expect.poll(async () => (await text('#live-rate-text')) ?? '', { timeout: 15_000 }).toMatch(/^[1-9][\d,]* in the last minute/);
    expect(await page.locator('#live-rate svg rect').count()).toBeGreaterThan(0);
    expect(await page.evaluate('window.loadedOnce')).toBe('still this document');
  }, 60_000);

  it('pauses the crawl from the page: nothing more is stored, and the page says who paused it', async () => {
    const pause = await press('#live-pause');
    expect(pause).toMatchObject({ requested_by: 'serve', command: 'pause', outcome: 'paused' });
    await expect.poll(() => text('#live-state'), { timeout: 15_000 }).toMatch(/^Paused from this page/);
    await expect.poll(() => text('#live-in-flight'), { timeout: 15_000 }).toBe('0');
    // The page in flight when it paused may still be committing: counted from a second later.
    await sleep(1000);
    const pausedAt = stored();
    await sleep(1500);
    expect(stored()).toBe(pausedAt);
    await page.locator('#live-concurrency').fill('3');
    const set = await press('#live-set-button');
    // Only the setting changed is sent: the others stay the crawl's own.
    expect([set.requested_by, set.command, JSON.parse(set.argument!)]).toEqual(['serve', 'set', { concurrency: 3 }]);
    await expect.poll(() => text('#live-settings'), { timeout: 15_000 }).toMatch(/^concurrency 3, /);
  }, 60_000);

  it('previews an exclusion, has the crawl skip what it matches, and queues it again when removed', async () => {
    // A trap in the queue of the paused crawl: 40 calendar pages of the site, beside 3 other pages.
    addUrls(
      db,
      Array.from({ length: 40 }, (_, i) => `${site.url}calendar?d=${i}`),
    );
    addUrls(
      db,
      ['a', 'b', 'c'].map((name) => `${site.url}other/${name}`),
    );
    const sent = controlRequests(db).length;
    await page.locator('#live-pattern').fill('[?&]d=');
    // Enter in the box previews, as the Preview button does; it sends nothing.
    await page.locator('#live-pattern').press('Enter');
    await expect.poll(() => text('#live-preview-result'), { timeout: 10_000 }).toBe('40 queued URLs match');
    await page.locator('#live-pattern').fill('/other/');
    await page.locator('#live-preview').click();
    await expect.poll(() => text('#live-preview-result'), { timeout: 10_000 }).toBe('3 queued URLs match');
    expect(controlRequests(db)).toHaveLength(sent);
    await page.locator('#live-pattern').fill('[?&]d=');
    const exclude = await press('#live-exclude-button');
    expect(exclude).toMatchObject({ requested_by: 'serve', command: 'exclude', argument: '[?&]d=' });
    expect(readArchive(db, "SELECT count(*) AS n FROM url WHERE error_code = 'excluded_live' AND url LIKE '%calendar?d=%'")).toEqual([
      { n: 40 },
    ]);
    const problem = page.locator('#live-problems tbody tr', { hasText: 'excluded_live' });
    await expect.poll(() => problem.locator('td.num').textContent(), { timeout: 15_000 }).toBe('40');
    const remove = page.locator('#live-exclusions button.live-include');
    await expect.poll(() => remove.getAttribute('data-pattern'), { timeout: 15_000 }).toBe('[?&]d=');
    const include = await press('#live-exclusions button.live-include');
    expect(include).toMatchObject({ requested_by: 'serve', command: 'include', argument: '[?&]d=' });
    expect(readArchive(db, "SELECT count(*) AS n FROM url WHERE state = 'queued' AND url LIKE '%calendar?d=%'")).toEqual([{ n: 40 }]);
    await expect.poll(() => remove.count(), { timeout: 15_000 }).toBe(0);
  }, 60_000);

  it('resumes the crawl from the page', async () => {
    const resume = await press('#live-resume');
    expect(resume).toMatchObject({ requested_by: 'serve', command: 'resume' });
    await expect.poll(() => page.locator('#live-state').getAttribute('data-state'), { timeout: 15_000 }).toBe('running');
    const resumedAt = stored();
    await waitFor('the crawl to store pages again', () => stored() > resumedAt, 15_000);
  }, 60_000);
});
