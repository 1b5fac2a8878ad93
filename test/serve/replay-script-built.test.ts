import type { Browser, Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { startLoggingProxy, type LoggingProxy } from '../support/logging-proxy.js';
import { ASKS, BUILT, startScriptBuiltSite } from '../support/script-built-site.js';

// A page whose script builds its content from JSON it asks for (fetch with a path, a relative URL,
// an absolute one, a Request, a URL object; XMLHttpRequest with a path, a relative and an absolute
// URL), crawled without a browser (the page and the JSON both roots), replayed in Chromium with the
// site stopped: the archived JSON answers every way of asking, a POST and a URL never archived are
// answered by the archive, and no request leaves for the live origin.

noticeIfNoBrowser('serve/replay-script-built');

describe.skipIf(!HAS_CHROMIUM)('replay of a page its script builds', () => {
  const tmp = tempDir();
  const db = tmp.path('script-built.sqlite');
  let liveHost: string;
  let pageUrl: string;
  let serving: ServingArchive;
  let proxy: LoggingProxy;
  let browser: Browser;

  beforeAll(async () => {
    const site = await startScriptBuiltSite();
    liveHost = new URL(site.url).host;
    pageUrl = new URL('/app.html', site.url).href;
    const crawl = await runCli(['crawl', pageUrl, new URL('/api/items.json', site.url).href, '--db', db, '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
    await site.close();
    expect(readArchive<{ url: string }>(db, 'SELECT url FROM pages ORDER BY url').map((row) => new URL(row.url).pathname)).toEqual(['/api/items.json', '/app.html', '/robots.txt']);
    serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
    proxy = await startLoggingProxy();
    browser = await launchChromium({ proxy: proxy.url });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await serving?.close();
    tmp.cleanup();
  });

  it('builds the page from the archived JSON however the script asks, and asks nothing of the live origin', async () => {
    const context = await browser.newContext();
    const seenBefore = proxy.requests.length;
    let shown: Record<string, string> = {};
    try {
      const page = await context.newPage();
      await page.goto(`${serving.uiUrl}replay?url=${encodeURIComponent(pageUrl)}`);
      let frame: Frame | undefined;
      await expect.poll(() => (frame = page.frames().find((candidate) => candidate.url().startsWith(serving.replayOrigin))) !== undefined, { timeout: 10_000 }).toBe(true);
      const read = async () => {
        shown = Object.fromEntries(await Promise.all(ASKS.map(async (id) => [id, (await frame!.locator(`#${id}`).textContent()) ?? ''] as const)));
        return Object.values(shown).every((text) => text !== 'waiting');
      };
      await expect.poll(read, { timeout: 15_000 }).toBe(true);
    } finally {
      await context.close();
    }
    expect(shown).toEqual({
      'fetch-path': BUILT,
      'fetch-relative': BUILT,
      'fetch-absolute': BUILT,
      'fetch-request': BUILT,
      'fetch-url-object': BUILT,
      'xhr-path': BUILT,
      'xhr-relative': BUILT,
      'xhr-absolute': BUILT,
      'fetch-absolute-request': BUILT,
      'fetch-protocol-relative': BUILT,
      'fetch-location-origin': BUILT,
      'xhr-url-object': BUILT,
      // Replay answers GET and HEAD only: a POST is answered by the archive, never sent on.
      'fetch-post': 'status 405',
      'fetch-post-request': 'status 405',
      'fetch-missing': 'status 404',
    });
    expect(proxy.requests.length, 'the browser went through the proxy').toBeGreaterThan(seenBefore);
    const live = proxy.requests.slice(seenBefore).filter((logged) => logged.host === liveHost);
    expect(live).toEqual([]);
    expect(proxy.outside([new URL(serving.uiUrl).host, new URL(serving.replayOrigin).host], seenBefore)).toEqual([]);
  });
});
