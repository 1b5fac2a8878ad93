import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { captureTimestamp } from '../../src/serve/replay-url.js';
import { readArchive, tempDir } from '../support/archive.js';
import { A_TEXTS, APPLES, HOME_TEXTS, LATER_AT, LATEST_AT, LIST_BUSTED, makeBannerArchive, PWNED } from '../support/banner-archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser } from '../support/browser.js';
import { replayPageOrigin } from '../support/replay-hosts.js';

// The replay bar in Chromium: drawn by the UI origin's top document, never inside the replayed page;
// it follows the reader's clicks in the frame; a page that lies to it can make it show another real
// capture at most, and never puts markup into it; a fuzzy match says so.

noticeIfNoBrowser('serve/replay-banner-browser');

/** How long the bar gets to act on an answer it must not act on, once that answer has arrived. */
const SETTLE_MS = 500;

describe.skipIf(!HAS_CHROMIUM)('the replay bar', () => {
  const tmp = tempDir();
  const db = tmp.path('banner.sqlite');
  let origin: string;
  let serving: ServingArchive;
  let browser: Browser;

  beforeAll(async () => {
    origin = await makeBannerArchive(db);
    serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await serving?.close();
    tmp.cleanup();
  });

  // The UI's replay page is on the replay hosts' own domain; its links stay there.
  const ui = () => replayPageOrigin(serving.uiUrl);
  const at = (path: string) => `${origin}${path}`;
  const firstTs = (path: string) =>
    captureTimestamp(
      readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM captures WHERE url = ? ORDER BY fetched_at LIMIT 1', at(path))[0]!
        .fetched_at,
    );
  const framePage = (url: string, ts: string) => `${ui()}/replay?url=${encodeURIComponent(url)}&ts=${ts}`;

  /** A fresh profile in Tokyo's time zone (UTC+9, no daylight saving); `run` gets its page and the UI's /api/capture requests. */
  async function browse(run: (page: Page, asked: string[]) => Promise<void>): Promise<void> {
    const context = await browser.newContext({ timezoneId: 'Asia/Tokyo' });
    const asked: string[] = [];
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/capture') asked.push(url.searchParams.get('url') ?? '');
    });
    try {
      await run(await context.newPage(), asked);
    } finally {
      await context.close();
    }
  }

  it("shows the URL, the capture's time in the reader's zone, its place among the captures, earlier and later captures that open, and the capture and archive links", async () => {
    await browse(async (page) => {
      const home = at('/');
      await page.goto(framePage(home, captureTimestamp(LATER_AT)));
      const bar = page.locator('#replay-bar');
      const frame = page.frameLocator('#replay');
      await expect.poll(() => frame.locator('#title').textContent()).toBe(HOME_TEXTS[1]);
      expect(await bar.locator('#replay-url').textContent()).toBe(home);
      await expect.poll(() => bar.locator('#replay-time').textContent()).toBe('2030-01-02 09:00:00 UTC+09');
      expect(await bar.locator('#replay-time').getAttribute('title')).toBe(LATER_AT);
      expect(await bar.locator('#replay-position').textContent()).toBe('capture 2 of 3');
      expect(await bar.locator('#replay-fuzzy').isVisible()).toBe(false);

      await Promise.all([page.waitForURL(framePage(home, captureTimestamp(LATEST_AT))), bar.locator('#replay-next').click()]);
      await expect.poll(() => frame.locator('#title').textContent()).toBe(HOME_TEXTS[2]);
      expect(await bar.locator('#replay-position').textContent()).toBe('capture 3 of 3');
      expect(await bar.locator('#replay-next').getAttribute('href')).toBeNull();
      await Promise.all([page.waitForURL(framePage(home, captureTimestamp(LATER_AT))), bar.locator('#replay-prev').click()]);
      await Promise.all([page.waitForURL(framePage(home, firstTs('/'))), page.locator('#replay-bar #replay-prev').click()]);
      await expect.poll(() => frame.locator('#title').textContent()).toBe(HOME_TEXTS[0]);
      expect(await bar.locator('#replay-prev').getAttribute('href')).toBeNull();

      await Promise.all([
        page.waitForURL(`${ui()}/capture?url=${encodeURIComponent(home)}&ts=${firstTs('/')}`),
        bar.locator('#replay-capture').click(),
      ]);
      await page.goBack();
      await Promise.all([page.waitForURL(`${ui()}/`), page.locator('#replay-bar #replay-archive').click()]);
    });
  });

  it("is never in the replayed page's own document", async () => {
    await browse(async (page) => {
      await page.goto(framePage(at('/'), captureTimestamp(LATEST_AT)));
      const frame = page.frameLocator('#replay');
      await expect.poll(() => frame.locator('#title').textContent()).toBe(HOME_TEXTS[2]);
      expect(await page.locator('#replay-bar #replay-position').textContent()).toBe('capture 3 of 3');
      expect(await frame.locator('#replay-bar, header, time').count()).toBe(0);
      const replayed = (await (await page.locator('iframe#replay').elementHandle())!.contentFrame())!;
      expect(await replayed.evaluate('document.documentElement.outerHTML')).not.toContain('capture 3 of 3');
    });
  });

  it('follows a link the reader follows inside the frame: URL, time, place and the address', async () => {
    await browse(async (page, asked) => {
      await page.goto(framePage(at('/'), captureTimestamp(LATEST_AT)));
      const bar = page.locator('#replay-bar');
      const frame = page.frameLocator('#replay');
      await expect.poll(() => frame.locator('#title').textContent()).toBe(HOME_TEXTS[2]);
      await frame.locator('#to-a').click();
      await expect.poll(() => frame.locator('#title').textContent()).toBe(A_TEXTS[1]);
      await expect.poll(() => bar.locator('#replay-url').textContent()).toBe(at('/a'));
      await expect.poll(() => bar.locator('#replay-time').textContent()).toBe('2030-01-03 09:00:00 UTC+09');
      expect(await bar.locator('#replay-position').textContent()).toBe('capture 2 of 2');
      expect(await bar.locator('#replay-prev').getAttribute('href')).toBe(
        `/replay?url=${encodeURIComponent(at('/a'))}&ts=${firstTs('/a')}`,
      );
      expect(await bar.locator('#replay-capture').getAttribute('href')).toBe(
        `/capture?url=${encodeURIComponent(at('/a'))}&ts=${captureTimestamp(LATEST_AT)}`,
      );
      expect(page.url()).toBe(framePage(at('/a'), captureTimestamp(LATEST_AT)));
      expect(asked).toEqual([at('/a')]);
      // And back: the earlier link now opens /a's first capture.
      await Promise.all([page.waitForURL(framePage(at('/a'), firstTs('/a'))), bar.locator('#replay-prev').click()]);
      await expect.poll(() => frame.locator('#title').textContent()).toBe(A_TEXTS[0]);
    });
  });

  it("a page that reaches for the UI's document and posts forged messages changes nothing but which real capture the bar names, and its text never becomes markup", async () => {
    await browse(async (page, asked) => {
      await page.goto(framePage(at('/forger'), firstTs('/forger')));
      const bar = page.locator('#replay-bar');
      const frame = page.frameLocator('#replay');
      await expect
        .poll(() => frame.locator('#result').textContent(), { timeout: 10_000 })
        .toBe('parent.document: SecurityError; top.document: SecurityError');
      // The last message names a capture the archive has: the bar may show it, as it is.
      await expect.poll(() => bar.locator('#replay-url').textContent()).toBe(at('/a'));
      await expect.poll(() => bar.locator('#replay-time').getAttribute('datetime')).toBe(LATEST_AT);
      const top = await page.content();
      expect(top).not.toContain(PWNED);
      expect(await page.title()).not.toContain(PWNED);
      expect(await page.locator('#replay-bar img, #replay-bar b').count()).toBe(0);
      expect(await page.locator('body > *').count()).toBe(2 + (await page.locator('body > script').count()));
      // The markup posted as a URL was a question the archive answered with nothing; the bad timestamp was not even asked.
      expect(asked.slice(0, 3)).toEqual([`https://evil.invalid/<img src=x id=${PWNED}>`, `https://nowhere.invalid/${PWNED}`, at('/a')]);
      // Later questions (the frame asked again where it is) are of the forger itself or of /a again.
      expect(asked.slice(3).filter((url) => url !== at('/forger') && url !== at('/a'))).toEqual([]);
    });
  });

  it("ignores messages from any window but the replay frame's own (a frame the page made)", async () => {
    await browse(async (page, asked) => {
      await page.goto(framePage(at('/forger-nested'), firstTs('/forger-nested')));
      const frame = page.frameLocator('#replay');
      await expect.poll(() => frame.locator('#result').textContent(), { timeout: 10_000 }).toBe('posted');
      // The page's own message, after its frame's, is followed; the frame's was not even asked about.
      await expect.poll(() => asked).toContain(at('/a'));
      expect(asked).not.toContain(at('/b'));
    });
  });

  it('a page that names a URL of its own making, which only a fuzzy match would take to a real capture, does not get its text into the bar', async () => {
    await browse(async (page, asked) => {
      const forged = `${at('/a')}?utm_source=${PWNED}`;
      const answered = page.waitForResponse((response) => response.url().includes('/api/capture') && response.url().includes(PWNED));
      await page.goto(framePage(at('/forger-fuzzy'), firstTs('/forger-fuzzy')));
      await (await answered).finished();
      expect(asked).toContain(forged);
      // The answer was a real capture, by a fuzzy match: given time to be drawn, it is not.
      await page.waitForTimeout(SETTLE_MS);
      expect(await page.locator('#replay-url').textContent()).toBe(at('/forger-fuzzy'));
      expect(await page.content()).not.toContain(PWNED);
      expect(page.url()).toBe(framePage(at('/forger-fuzzy'), firstTs('/forger-fuzzy')));
    });
  });

  it('a cache-busted URL replays the nearest capture of the URL without the buster, and the bar says it is a fuzzy match; an exact capture wins', async () => {
    await browse(async (page) => {
      const asked = at('/search?q=apples&_=1732665600123&utm_source=mail');
      await page.goto(framePage(asked, firstTs('/search?q=apples')));
      const frame = page.frameLocator('#replay');
      await expect.poll(() => frame.locator('#title').textContent()).toBe(APPLES);
      const fuzzy = page.locator('#replay-fuzzy');
      expect(await fuzzy.isVisible()).toBe(true);
      expect(await fuzzy.textContent()).toBe(`fuzzy match: showing a capture of ${at('/search?q=apples')}`);
      expect(await page.locator('#replay-url').textContent()).toBe(asked);

      await page.goto(framePage(at('/list?_=123'), captureTimestamp(LATER_AT)));
      await expect.poll(() => frame.locator('#title').textContent()).toBe(LIST_BUSTED);
      expect(await page.locator('#replay-fuzzy').isVisible()).toBe(false);
    });
  });
});
