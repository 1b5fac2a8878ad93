import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchReplayBrowser, type ReplayBrowser } from '../../src/browser/index.js';
import { CHROMIUM, HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { startServer, type TestServer } from '../support/test-server.js';

noticeIfNoBrowser('qa/replay-browser-reach');

// The Chromium qa replays in reaches the server it is told of and nothing else: a page's image, fetch,
// WebSocket and navigation to another port of this very machine never arrive there.

describe.skipIf(!HAS_CHROMIUM)('the replay browser', () => {
  let outside: TestServer;
  let served: TestServer;
  let browser: ReplayBrowser;
  beforeAll(async () => {
    outside = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('reached'));
    const there = outside.url;
    served = await startServer((_req, res, path) => {
      if (path !== '/') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>here</title>
<img src="${there}image.png">
<script>
fetch('${there}fetch').catch(() => {});
try { new WebSocket('${there.replace('http', 'ws')}socket'); } catch {}
navigator.sendBeacon('${there}beacon', 'x');
</script>`);
    });
    const port = String(served.port);
    browser = await launchReplayBrowser(CHROMIUM, (url) => url.hostname === '127.0.0.1' && url.port === port);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await outside?.close();
  });

  it('loads the page it may reach, and nothing of another port reaches it', async () => {
    const page = await browser.context.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(new URL(request.url()).pathname));
    await page.goto(served.url, { waitUntil: 'load' });
    expect(await page.title()).toBe('here');
    await expect(page.goto(`${outside.url}navigated`)).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    await page.waitForTimeout(500);
    expect(outside.totalHits()).toBe(0);
    expect(failed).toEqual(expect.arrayContaining(['/image.png', '/fetch', '/navigated']));
    await page.close();
  });
});
