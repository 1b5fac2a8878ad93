import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { captureTimestamp, replayPath } from '../../src/serve/replay-url.js';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser } from '../support/browser.js';
import { crawlHostileReplaySite, EVIL_HOST, HOSTILE_PAGES, SECRET } from '../support/hostile-replay-site.js';
import { startLoggingProxy, type LoggingProxy } from '../support/logging-proxy.js';
import { replayPageOrigin, serveHosts } from '../support/replay-hosts.js';
import { startServer, type TestServer } from '../support/test-server.js';

// Archived pages attack their reader in Chromium, every request of which goes through a logging
// proxy: none may reach a host other than the origins of `crawlite serve` (the UI, replay's base
// origin and the archived sites' own hosts on its port).

noticeIfNoBrowser('serve/replay-attacks');

/** How long a page gets, after its attack ran, for a popup or a navigation to reach the proxy. */
const SETTLE_MS = 1_000;

describe.skipIf(!HAS_CHROMIUM)('replay cannot turn against its reader', () => {
  const tmp = tempDir();
  const db = tmp.path('hostile.sqlite');
  let siteUrl: string;
  let serving: ServingArchive;
  let proxy: LoggingProxy;
  let browser: Browser;
  /** A plain page outside replay that opens a live URL: what the proxy must see when nothing stops it. */
  let unprotected: TestServer;

  beforeAll(async () => {
    siteUrl = await crawlHostileReplaySite(db);
    serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
    proxy = await startLoggingProxy();
    browser = await launchChromium({ proxy: proxy.url });
    unprotected = await startServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><button id="leave">leave</button><script>window.open('http://${EVIL_HOST}/unprotected-popup');` +
            `document.getElementById('leave').addEventListener('click', function () { top.location.href = 'http://${EVIL_HOST}/unprotected-top'; });</script>`,
        );
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await serving?.close();
    await unprotected?.close();
    tmp.cleanup();
  });

  const ui = () => serving.uiUrl.replace(/\/$/, '');
  /** Where the UI's replay page is moved for a browser: the replay hosts' own domain. */
  const replayPage = () => replayPageOrigin(serving.uiUrl);
  const hostOf = (origin: string) => new URL(origin).host;
  const url = (path: string) => new URL(path, siteUrl).href;
  const timestamp = (path: string) =>
    captureTimestamp(readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM pages WHERE url = ?', url(path))[0]!.fetched_at);
  const replayUrl = (path: string) => serving.replayOrigin + replayPath(url(path), timestamp(path));
  const capturePage = (path: string) => `${ui()}/capture?url=${encodeURIComponent(url(path))}`;

  /**
   * A fresh browser profile; `run` drives it; then the proxy must have seen requests, none for a
   * host other than the serve origins. What `run` returns is checked after that, so a leak is
   * reported as such.
   */
  async function browse<T>(run: (page: Page, context: BrowserContext) => Promise<T>): Promise<T> {
    const seenBefore = proxy.requests.length;
    const context = await browser.newContext();
    let outcome: { result: T } | { error: unknown };
    try {
      outcome = { result: await run(await context.newPage(), context) };
    } catch (error) {
      outcome = { error };
    } finally {
      await context.close();
    }
    // A leak is the failure to report, even when it also broke what `run` expected.
    expect(proxy.requests.length, 'the browser went through the proxy').toBeGreaterThan(seenBefore);
    // The serve origins: the UI (on its names), the base replay origin and the archived sites' own replay hosts of its port.
    expect(proxy.outside(serveHosts(serving.uiUrl, serving.replayOrigin), seenBefore).map((logged) => logged.url)).toEqual([]);
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  }

  /** What the attack page reported, from the frame (or page) where it wrote it, once it has; then its #leave is clicked. */
  async function attackReport(page: Page): Promise<Record<string, string>> {
    let found: Frame | undefined;
    let text = '';
    await expect
      .poll(
        async () => {
          for (const frame of page.frames()) {
            text = await frame.evaluate("document.getElementById('done')?.textContent ?? ''").then(String, () => '');
            if (text) {
              found = frame;
              return true;
            }
          }
          return false;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    const report = JSON.parse(text) as Record<string, string>;
    await found!.locator('#leave').click({ timeout: 5_000, noWaitAfter: true });
    await page.waitForTimeout(SETTLE_MS);
    return report;
  }

  /** The attack read the private capture (so it had something to send), and could not read the UI. */
  function expectReadOnlyTheArchive(report: Record<string, string>): void {
    expect(report.secret).toBe(SECRET);
    expect(report.readParent).toBe('threw SecurityError');
    expect(report.fetchUi).not.toBe('read the UI');
    expect(report.fetchUiUnseen).not.toBe('read the UI');
  }

  it('the proxy sees a popup and a top navigation to the live web when nothing stops them (so the checks below can fail)', async () => {
    const seenBefore = proxy.requests.length;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(unprotected.url);
      await page.locator('#leave').click({ timeout: 15_000 });
      const live = () => proxy.outside([hostOf(unprotected.url)], seenBefore).map((logged) => logged.url);
      await expect.poll(live, { timeout: 10_000 }).toContain(`http://${EVIL_HOST}/unprotected-top`);
      expect(live()).toContain(`http://${EVIL_HOST}/unprotected-popup`);
    } finally {
      await context.close();
    }
    expect(proxy.requests.slice(seenBefore).some((logged) => logged.host === hostOf(unprotected.url))).toBe(true);
  });

  it("a page framed on the UI's capture page reads another capture but opens no window, frame or form on the live web", async () => {
    const { report, top } = await browse(async (page) => {
      await page.goto(capturePage(HOSTILE_PAGES.attack));
      return { report: await attackReport(page), top: page.url() };
    });
    expectReadOnlyTheArchive(report);
    expect([report.framePopup, report.unseenFramePopup, report.popup]).toEqual(['false', 'false', 'false']);
    // Best effort on top of the sandbox: the frame the page created got the shim's wrappers too.
    expect(report.frameShimmed).toBe('true');
    expect(top).toBe(capturePage(HOSTILE_PAGES.attack));
  });

  it("the capture page's 'open the replay' link opens a UI page framing the replay: the page's top navigation and popups stay blocked", async () => {
    const { report, shown, top } = await browse(async (page) => {
      await page.goto(capturePage(HOSTILE_PAGES.attack));
      const href = await page.getByRole('link', { name: 'open the replay' }).getAttribute('href');
      await page.goto(new URL(href!, serving.uiUrl).href);
      const shown = page.url();
      return { report: await attackReport(page), shown, top: page.url() };
    });
    expectReadOnlyTheArchive(report);
    expect(report.popup).toBe('false');
    expect(new URL(shown).origin).toBe(replayPage());
    expect(top).toBe(shown);
  });

  it('a top-level navigation to a replay URL is shown in the UI frame, where the same attacks fail', async () => {
    const { report, shown, top } = await browse(async (page) => {
      await page.goto(replayUrl(HOSTILE_PAGES.attack));
      const shown = page.url();
      return { report: await attackReport(page), shown, top: page.url() };
    });
    expectReadOnlyTheArchive(report);
    expect(shown).toBe(`${replayPage()}/replay?url=${encodeURIComponent(url(HOSTILE_PAGES.attack))}&ts=${timestamp(HOSTILE_PAGES.attack)}`);
    expect(top).toBe(shown);
  });

  it("the capture page's 'body as captured' link shows the raw body framed: its meta refresh to the live web goes nowhere", async () => {
    const { framed, top } = await browse(async (page) => {
      await page.goto(capturePage(HOSTILE_PAGES.refresh));
      const href = await page.locator('a#raw-body').getAttribute('href');
      await page.goto(new URL(href!, serving.uiUrl).href);
      const raw = page.frameLocator('iframe#replay').locator('#refreshing');
      await raw.waitFor({ timeout: 5_000 }).catch(() => {});
      await page.waitForTimeout(SETTLE_MS);
      return { framed: await raw.textContent({ timeout: 1_000 }).catch(() => null), top: page.url() };
    });
    expect(framed).toBe('leaving');
    expect(new URL(top).origin).toBe(replayPage());
  });

  it('a body as captured opened top-level is framed too', async () => {
    const top = await browse(async (page) => {
      await page.goto(serving.replayOrigin + replayPath(url(HOSTILE_PAGES.refresh), timestamp(HOSTILE_PAGES.refresh), 'id_'));
      await page.waitForTimeout(SETTLE_MS);
      return page.url();
    });
    expect(top).toBe(
      `${replayPage()}/replay?url=${encodeURIComponent(url(HOSTILE_PAGES.refresh))}&ts=${timestamp(HOSTILE_PAGES.refresh)}&raw=1`,
    );
  });

  describe('in a browser that sends no Fetch Metadata (older ones, or any on a plain-http address that is not loopback)', () => {
    const FETCH_METADATA = ['sec-fetch-dest', 'sec-fetch-mode', 'sec-fetch-site', 'sec-fetch-user'];
    beforeAll(() => proxy.withholdHeaders(FETCH_METADATA));
    afterAll(() => proxy.withholdHeaders([]));

    it('a replayed page opened top-level stops before its own scripts run and reloads in the UI frame', async () => {
      const { report, top } = await browse(async (page) => {
        await page.goto(replayUrl(HOSTILE_PAGES.attack));
        return { report: await attackReport(page), top: page.url() };
      });
      expectReadOnlyTheArchive(report);
      expect(top).toBe(`${replayPage()}/replay?url=${encodeURIComponent(url(HOSTILE_PAGES.attack))}&ts=${timestamp(HOSTILE_PAGES.attack)}`);
    });

    it('a body as captured opened top-level is shown where it is, and its sandbox (no scripts) keeps its meta refresh from leaving', async () => {
      const raw = serving.replayOrigin + replayPath(url(HOSTILE_PAGES.refresh), timestamp(HOSTILE_PAGES.refresh), 'id_');
      const { shown, top } = await browse(async (page) => {
        await page.goto(raw);
        // Shown first (a loaded machine may take seconds), then given the time a script would need to leave.
        await page
          .locator('#refreshing')
          .waitFor({ timeout: 10_000 })
          .catch(() => {});
        await page.waitForTimeout(SETTLE_MS);
        return { shown: await page.textContent('#refreshing', { timeout: 1_000 }).catch(() => null), top: page.url() };
      });
      expect({ shown, top }).toEqual({ shown: 'leaving', top: raw });
    });

    it('a captured document that is no HTML page (an SVG with a script) opened top-level runs no script', async () => {
      const svg = replayUrl(HOSTILE_PAGES.svg);
      const { shown, top } = await browse(async (page) => {
        await page.goto(svg);
        // Shown first (a loaded machine may take seconds), then given the time a script would need to leave.
        await page
          .locator('#drawn')
          .waitFor({ timeout: 10_000 })
          .catch(() => {});
        await page.waitForTimeout(SETTLE_MS);
        return { shown: await page.textContent('#drawn', { timeout: 1_000 }).catch(() => null), top: page.url() };
      });
      expect({ shown, top }).toEqual({ shown: 'drawn', top: svg });
    });
  });

  it('an archived script cannot register a service worker: every other capture still replays as itself', async () => {
    const framedText = async (page: Page, selector: string) => {
      const located = page.frameLocator('iframe#replay').locator(selector);
      await located.waitFor({ timeout: 10_000 }).catch(() => {});
      return located.textContent({ timeout: 1_000 }).catch(() => null);
    };
    const seen = await browse(async (page) => {
      await page.goto(capturePage(HOSTILE_PAGES.serviceWorker));
      const frame = page.frameLocator('iframe#replay');
      await expect
        .poll(
          () =>
            frame
              .locator('#sw-result')
              .textContent({ timeout: 1_000 })
              .catch(() => ''),
          { timeout: 10_000 },
        )
        .not.toBe('');
      const registration = await frame.locator('#sw-result').textContent();
      await page.goto(capturePage(HOSTILE_PAGES.about));
      const about = await framedText(page, 'h1');
      await page.goto(replayUrl(HOSTILE_PAGES.private));
      return { registration, about, secret: await framedText(page, 'p, h1') };
    });
    expect(seen).toEqual({ registration: 'page: refused; unseen frame: refused', about: 'About, as captured', secret: SECRET });
  });
});
