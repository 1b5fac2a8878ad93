import { createServer, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureTimestamp, replayPath } from '../../src/serve/replay-url.js';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser, recordRequests } from '../support/browser.js';
import { execCli } from '../support/cli.js';
import { differingShare, pixelAt } from '../support/png.js';
import { BODY_WORD, COLOURS, FETCHED_MESSAGE, GBK_TEXT, startReplaySite } from '../support/replay-site.js';
import { replayHostOriginPattern, replayPageOrigin, serveOrigins } from '../support/replay-hosts.js';
import { startServe } from '../support/serve.js';

noticeIfNoBrowser('serve/browser-replay');

const VIEWPORT = { width: 640, height: 400 };
/** The UI's bar above a replay (2.5rem): the replay's frame below it is the size of VIEWPORT. */
const BAR = 40;
/** Set to a folder (docs/screenshots) to keep a screenshot of each UI page for the README. */
const SCREENSHOTS = process.env.CRAWLITE_SCREENSHOTS;

describe.skipIf(!HAS_CHROMIUM)('crawlite serve in Chromium', () => {
  const tmp = tempDir();
  const db = tmp.path('site.sqlite');
  let browser: Browser;
  let serve: Awaited<ReturnType<typeof startServe>>;
  let siteUrl: string;
  let livePort: number;
  let liveShot: Buffer;
  /** Listens where the archived site was, once it is gone: any request reaching it is replay touching the live web. */
  let sentinel: Server;
  const sentinelHits: string[] = [];

  beforeAll(async () => {
    const site = await startReplaySite();
    siteUrl = site.url;
    livePort = site.port;
    browser = await launchChromium();
    const live = await browser.newPage({ viewport: VIEWPORT });
    await live.goto(site.url);
    await live.waitForFunction(`document.getElementById('fetched')?.textContent === ${JSON.stringify(FETCHED_MESSAGE)}`, undefined, {
      timeout: 10_000,
    });
    liveShot = await live.screenshot();
    await live.close();

    const crawl = await execCli(['crawl', site.url, '--db', db]);
    expect(crawl.code, crawl.stderr).toBe(0);
    await site.close();
    sentinel = createServer((req, res) => {
      sentinelHits.push(req.url ?? '');
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => sentinel.listen(livePort, '127.0.0.1', resolve));
    serve = await startServe(db);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    sentinel?.closeAllConnections();
    await new Promise((resolve) => sentinel?.close(resolve));
    tmp.cleanup();
  });

  /** The replay address of an archived URL, at the time it was captured. */
  function replayOf(url: string): string {
    const [row] = readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM pages WHERE url = ?', url);
    expect(row, `${url} is archived`).toBeDefined();
    return serve.replay + replayPath(url, captureTimestamp(row!.fetched_at));
  }

  /** A fresh page whose every request is recorded; `check` runs with it, then nothing may have left the serve origins. */
  async function browse(check: (page: Page) => Promise<void>): Promise<void> {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const requests = recordRequests(context);
    try {
      await check(await context.newPage());
    } finally {
      await context.close();
    }
    expect(requests.urls.length).toBeGreaterThan(0);
    expect(requests.outside(serveOrigins(serve.ui, serve.replay))).toEqual([]);
    expect(sentinelHits).toEqual([]);
  }

  /**
   * Opens a replay URL top-level, as a reader would: it is shown on the UI's frame page, the
   * capture in its sandboxed frame, which is returned.
   */
  async function openReplay(page: Page, url: string): Promise<Frame> {
    await page.goto(url);
    // The UI's replay page, on the replay hosts' domain.
    expect(new URL(page.url()).origin).toBe(replayPageOrigin(serve.ui));
    const frame = await (await page.locator('iframe#replay').elementHandle())!.contentFrame();
    expect(frame).not.toBeNull();
    await frame!.waitForLoadState();
    return frame!;
  }

  async function keepScreenshot(page: Page, name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.setViewportSize({ width: 960, height: 640 });
    writeFileSync(join(SCREENSHOTS, `${name}.png`), await page.screenshot({ fullPage: true }));
  }

  it('replays the home page as captured: image, CSS url() background, iframe, the JSON its script fetched; it looks as it did live', async () => {
    await browse(async (page) => {
      await page.setViewportSize({ width: VIEWPORT.width, height: VIEWPORT.height + BAR });
      const replay = await openReplay(page, replayOf(siteUrl));
      await expect.poll(() => replay.textContent('#fetched'), { timeout: 10_000 }).toBe(FETCHED_MESSAGE);
      await replay.frameLocator('#frame').locator('text=inside the frame').waitFor({ timeout: 10_000 });
      await replay.waitForFunction('[...document.images].every((image) => image.complete && image.naturalWidth > 0)', undefined, {
        timeout: 10_000,
      });
      const frameBox = (await page.locator('iframe#replay').boundingBox())!;
      expect(frameBox).toEqual({ x: 0, y: BAR, ...VIEWPORT });
      const shot = await page.locator('iframe#replay').screenshot();
      const at = async (selector: string) => {
        const box = (await replay.locator(selector).boundingBox())!;
        return pixelAt(shot, box.x - frameBox.x + box.width / 2, box.y - frameBox.y + box.height / 2);
      };
      expect(await at('#logo')).toEqual(COLOURS.logo);
      expect(await at('#bg')).toEqual(COLOURS.background);
      expect(await at('#frame')).toEqual(COLOURS.frame);
      expect(differingShare(shot, liveShot)).toBeLessThan(0.01);
    });
  });

  it('the replay bar above the page names the archived URL and the capture time', async () => {
    await browse(async (page) => {
      const replay = await openReplay(page, replayOf(siteUrl));
      await expect.poll(() => replay.textContent('#fetched'), { timeout: 10_000 }).toBe(FETCHED_MESSAGE);
      expect(await page.locator('#replay-bar #replay-url').textContent()).toBe(siteUrl);
      await page.locator('#replay-bar #replay-time[data-local]').waitFor({ timeout: 15_000 });
      await keepScreenshot(page, 'replay');
    });
  });

  it('a click on an archived link opens the archived target', async () => {
    await browse(async (page) => {
      const replay = await openReplay(page, replayOf(siteUrl));
      await Promise.all([replay.waitForURL(/about\.html$/), replay.click('#to-about')]);
      expect(await replay.textContent('#about')).toBe('About this archive');
      // The archived site's own replay host, at the path it was captured at.
      expect(new URL(replay.url()).origin).toMatch(replayHostOriginPattern(serve.replay));
      expect(new URL(replay.url()).pathname).toBe('/about.html');
    });
  });

  it('a click on a link that was not archived shows the "not archived" page, naming the live URL without loading it', async () => {
    await browse(async (page) => {
      const replay = await openReplay(page, replayOf(siteUrl));
      await Promise.all([replay.waitForURL(/elsewhere\.html$/), replay.click('#to-elsewhere')]);
      const notArchived = replay.locator('#not-archived');
      await notArchived.waitFor({ timeout: 15_000 });
      expect(await notArchived.textContent()).toContain(`http://localhost:${livePort}/elsewhere.html`);
    });
  });

  it('shows a page captured in GBK with its Chinese text', async () => {
    await browse(async (page) => {
      const replay = await openReplay(page, replayOf(`${siteUrl}gbk.html`));
      expect(await replay.textContent('#zh')).toBe(GBK_TEXT);
    });
  });

  it('the capture page shows the replay in a frame from the replay origin beside the response headers', async () => {
    await browse(async (page) => {
      await page.goto(`${serve.ui}capture?url=${encodeURIComponent(siteUrl)}`);
      const frame = page.frameLocator('iframe#replay');
      await frame.locator('#title').waitFor({ timeout: 10_000 });
      expect(await frame.locator('#title').textContent()).toBe('Archived home');
      expect(await page.locator('body').textContent()).toMatch(/content-type/i);
      await keepScreenshot(page, 'capture');
    });
  });

  it('the search box finds a page by a word of its body', async () => {
    await browse(async (page) => {
      await page.goto(serve.ui);
      await page.fill('form#nav-search input[name=q]', BODY_WORD, { timeout: 15_000 });
      await Promise.all([page.waitForURL(/search/), page.press('form#nav-search input[name=q]', 'Enter')]);
      const hits = page.locator('ol#hits li');
      expect(await hits.count()).toBe(1);
      expect(await hits.first().textContent()).toContain(siteUrl);
      expect(await page.locator('.snippet mark').first().textContent()).toMatch(new RegExp(BODY_WORD, 'i'));
      await keepScreenshot(page, 'search');
    });
  });

  it('the overview draws its chart of pages fetched over time; the URL table lists the archive', async () => {
    await browse(async (page) => {
      await page.goto(serve.ui);
      const canvas = page.locator('#timeline canvas').first();
      await canvas.waitFor({ timeout: 10_000 });
      const box = (await canvas.boundingBox())!;
      expect(box.width).toBeGreaterThan(100);
      expect(box.height).toBeGreaterThan(50);
      await keepScreenshot(page, 'overview');
      await page.goto(`${serve.ui}urls`);
      expect(await page.locator('body').textContent()).toContain(`${siteUrl}about.html`);
      await keepScreenshot(page, 'urls');
    });
  });
});
