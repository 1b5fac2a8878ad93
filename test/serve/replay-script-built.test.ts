import type { Browser, Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { startLoggingProxy, type LoggingProxy } from '../support/logging-proxy.js';
import { serveHosts } from '../support/replay-hosts.js';
import {
  ASKS,
  BUILT,
  ITEMS,
  POSTED,
  POSTED_BODY,
  POSTED_ITEMS,
  startScriptBuiltSite,
  writePostWarc,
} from '../support/script-built-site.js';

// A page whose script builds its content from JSON it asks for (fetch with a path, a relative URL,
// an absolute one, a Request, a URL object; XMLHttpRequest with a path, a relative and an absolute
// URL), crawled without a browser (the page and the JSON both roots), replayed in Chromium with the
// site stopped: the archived JSON answers every way of asking, a POST by the archived answer to the
// same POST (imported from a WARC) or else a 404, as a URL never archived is, and no request leaves
// for the live origin.

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
    const warc = tmp.path('post.warc');
    writePostWarc(warc, site.url.replace(/\/$/, ''));
    const imported = await runCli(['import', warc, '--db', db]);
    expect(imported.code, imported.stderr).toBe(0);
    await site.close();
    expect(readArchive<{ url: string }>(db, 'SELECT url FROM pages ORDER BY url').map((row) => new URL(row.url).pathname)).toEqual([
      '/api/items.json',
      '/app.html',
      '/robots.txt',
    ]);
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
      frame = (await (await page.locator('iframe#replay').elementHandle())!.contentFrame())!;
      const read = async () => {
        shown = Object.fromEntries(
          await Promise.all(ASKS.map(async (id) => [id, (await frame!.locator(`#${id}`).textContent()) ?? ''] as const)),
        );
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
      // A POST: the archive's answer to the same POST, else a 404 from the archive, never the live site.
      'fetch-post': POSTED,
      'fetch-post-request': 'status 404',
      'fetch-missing': 'status 404',
    });
    expect(proxy.requests.length, 'the browser went through the proxy').toBeGreaterThan(seenBefore);
    const live = proxy.requests.slice(seenBefore).filter((logged) => logged.host === liveHost);
    expect(live).toEqual([]);
    expect(proxy.outside(serveHosts(serving.uiUrl, serving.replayOrigin), seenBefore)).toEqual([]);
  });

  it('answers a POST over HTTP with the capture of the same POST only: another body gets 404, a GET the GET capture, a body over 1 MiB 413', async () => {
    const items = `${serving.replayOrigin}/20300101000000id_/${new URL('/api/items.json', pageUrl).href}`;
    const post = (body: string | Buffer) => fetch(items, { method: 'POST', body });
    const posted = await post(POSTED_BODY);
    expect(posted.status).toBe(200);
    expect(await posted.json()).toEqual(POSTED_ITEMS);
    expect((await post('q=2')).status).toBe(404);
    expect((await post('')).status).toBe(404);
    expect(await (await fetch(items)).json()).toEqual(ITEMS);
    expect((await post(Buffer.alloc(1024 * 1024 + 1, 0x61))).status).toBe(413);
    expect((await fetch(items, { method: 'PUT', body: POSTED_BODY })).status).toBe(405);
  });
});
