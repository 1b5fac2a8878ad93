import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser } from '../support/browser.js';
import { spawnCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import { addLiveExclusion, addUrls, applyRequest, controlRequests, writeCrawlLive } from '../support/live-rows.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

// The live page in Chromium while a real crawl process fills the archive: it shows each new page
// without being reloaded, and the crawl's state as its live row says; each control pressed lands in
// control_request, asked by serve, and its outcome shows once the crawl (here the test) applies it.

noticeIfNoBrowser('serve/live-page-browser');

const PAGES = 60;

describe.skipIf(!HAS_CHROMIUM)('the live page', () => {
  const tmp = tempDir();
  const db = tmp.path('live.sqlite');
  let site: TestServer;
  let crawl: ReturnType<typeof spawnCli>;
  let serving: ServingArchive;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // One page at a time, 150 ms each: a crawl of about ten seconds.
    site = await startLinkedSite(PAGES, 150);
    crawl = spawnCli(['crawl', site.url, '--db', db, '-q', '-c', '1', '--delay', '0']);
    await waitFor(
      'the crawl to store its first pages',
      () => {
        try {
          return readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM response')[0]!.n >= 2;
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

  it('shows the pages a running crawl stores and its state as it changes, without a reload', async () => {
    await page.goto(`${serving.uiUrl}live`);
    await page.evaluate("window.loadedOnce = 'still this document'");
    writeCrawlLive(db, { state: 'running', in_flight: 1, concurrency: 1, per_host: 1 });
    await expect.poll(() => page.locator('#live-state').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
    expect(await text('#live-in-flight')).toBe('1');
    const first = await recentUrls();
    expect(first.length).toBeGreaterThan(0);
    // The crawl goes on: newer pages appear at the top, read by the page on its own.
    await expect.poll(async () => (await recentUrls())[0] !== first[0], { timeout: 15_000 }).toBe(true);
    await expect.poll(async () => (await text('#live-rate-text')) ?? '', { timeout: 5000 }).toMatch(/^[1-9][\d,]* in the last minute/);
    expect(await page.locator('#live-rate svg rect').count()).toBeGreaterThan(0);
    writeCrawlLive(db, { state: 'paused', paused_by: 'control', in_flight: 0, concurrency: 1, per_host: 1 });
    await expect.poll(() => text('#live-state'), { timeout: 10_000 }).toMatch(/^Paused by crawlite control/);
    expect(await page.evaluate('window.loadedOnce')).toBe('still this document');
  }, 60_000);

  it('sends each control pressed as a request of serve, and shows its outcome once applied', async () => {
    await page.locator('#live-pause').click();
    await waitFor('the pause request', () => controlRequests(db).length === 1);
    await page.locator('#live-concurrency').fill('3');
    await page.locator('#live-set-button').click();
    await waitFor('the set request', () => controlRequests(db).length === 2);
    await page.locator('#live-resume').click();
    await waitFor('the resume request', () => controlRequests(db).length === 3);
    const [pause, set, resume] = controlRequests(db);
    expect([pause, resume].map((row) => [row!.requested_by, row!.command, row!.argument])).toEqual([
      ['serve', 'pause', null],
      ['serve', 'resume', null],
    ]);
    expect([set!.requested_by, set!.command, JSON.parse(set!.argument!)]).toEqual(['serve', 'set', { concurrency: 3, per_host: 1 }]);
    await expect.poll(() => page.locator('#live-requests tbody tr').count(), { timeout: 5000 }).toBe(3);
    expect(await text(`#live-requests tr[data-id="${pause!.id}"] td.outcome`)).toBe('waiting for the crawl…');
    applyRequest(db, pause!.id, 'paused');
    await expect.poll(() => text(`#live-requests tr[data-id="${pause!.id}"] td.outcome`), { timeout: 5000 }).toBe('paused');
  });

  it('previews an exclusion, sends it, and removes a live exclusion with its button', async () => {
    await crawl.exited;
    // A trap queued after the crawl: 40 calendar pages on a host of their own, beside 3 others.
    addUrls(
      db,
      Array.from({ length: 40 }, (_, i) => `http://calendar.test/day?d=${i}`),
    );
    addUrls(db, ['http://calendar.test/a', 'http://calendar.test/b', 'http://calendar.test/c']);
    await page.locator('#live-pattern').fill('[?&]d=');
    await page.locator('#live-preview').click();
    await expect.poll(() => text('#live-preview-result'), { timeout: 10_000 }).toBe('40 queued URLs match');
    await page.locator('#live-exclude-button').click();
    await waitFor('the exclude request', () => controlRequests(db).at(-1)?.command === 'exclude');
    expect(controlRequests(db).at(-1)).toMatchObject({ requested_by: 'serve', command: 'exclude', argument: '[?&]d=' });
    addLiveExclusion(db, 'calendar\\.test/day');
    const remove = page.locator('#live-exclusions button.live-include[data-pattern="calendar\\\\.test/day"]');
    await expect.poll(() => remove.count(), { timeout: 5000 }).toBe(1);
    await remove.click();
    await waitFor('the include request', () => controlRequests(db).at(-1)?.command === 'include');
    expect(controlRequests(db).at(-1)).toMatchObject({ requested_by: 'serve', command: 'include', argument: 'calendar\\.test/day' });
    // No crawl runs now: a request waits for the next run, and the page says so.
    writeCrawlLive(db, { state: 'ended' });
    await expect.poll(() => text('#live-state'), { timeout: 5000 }).toMatch(/^Not running: the last run ended/);
    const last = controlRequests(db).at(-1)!;
    await expect.poll(() => text(`#live-requests tr[data-id="${last.id}"] td.outcome`), { timeout: 5000 }).toBe('waits for the next run');
  }, 60_000);
});
