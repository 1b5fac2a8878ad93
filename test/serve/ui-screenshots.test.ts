import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { captureTimestamp } from '../../src/serve/replay-url.js';
import { tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser } from '../support/browser.js';
import { addCrawl } from '../support/captures.js';
import { runCli } from '../support/cli.js';
import { solidPng } from '../support/png.js';
import { addScreenshot } from '../support/screenshot-row.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';

// What the UI shows of a browser crawl's screenshots: the capture page shows its capture's
// screenshot, served by the UI origin as an image of an allowed type only (the archive may say
// anything in a screenshot's type), and the URL list marks the URLs whose latest capture has one.

noticeIfNoBrowser('serve/ui-screenshots');

const tmp = tempDir();
const db = tmp.path('site.sqlite');
const png = solidPng(40, 30, [10, 160, 20]);
const earlierPng = solidPng(20, 10, [160, 10, 20]);
let earlierTimestamp: string;
const HOSTILE = '<script>document.title="ran"</script>';
let site: TestServer;
let serving: ServingArchive;
const abs = (path: string) => new URL(path, site.url).href;
const ui = (path: string) => new URL(path, serving.uiUrl).href;
const q = (path: string) => encodeURIComponent(abs(path));

beforeAll(async () => {
  site = await startServer(
    routes({
      '/': html(
        '<a href="/shot">shot</a> <a href="/hostile">hostile</a> <a href="/plain">plain</a> <a href="/recrawled">recrawled</a>',
        'home',
      ),
      '/shot': html('a page a browser rendered', 'shot'),
      '/hostile': html('its screenshot row says text/html', 'hostile'),
      '/plain': html('crawled without a browser', 'plain'),
      '/recrawled': html('rendered in a browser the first time only', 'recrawled'),
    }),
  );
  const crawl = await runCli(['crawl', site.url, '--db', db, '-q']);
  expect(crawl.code, crawl.stderr).toBe(0);
  await site.close();
  addScreenshot(db, abs('/shot'), png);
  addScreenshot(db, abs('/hostile'), Buffer.from(HOSTILE), 'text/html');
  // A screenshot of the first capture; a later crawl (without a browser) replaces it as the latest.
  earlierTimestamp = captureTimestamp(addScreenshot(db, abs('/recrawled'), earlierPng));
  addCrawl(db, [{ url: abs('/recrawled'), fetchedAt: new Date(Date.now() + 60_000).toISOString(), body: '<p>crawled again</p>' }]);
  serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await serving?.close();
  tmp.cleanup();
});

describe('screenshots over HTTP', () => {
  it('/screenshot serves the image with its allowed type, nosniff and its exact bytes', async () => {
    const response = await fetch(ui(`/screenshot?url=${q('/shot')}`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.compare(Buffer.from(await response.arrayBuffer()), png)).toBe(0);
  });

  it('a screenshot stored with a type outside the allow-list is never served as such, nor as an image', async () => {
    const response = await fetch(ui(`/screenshot?url=${q('/hostile')}`));
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const body = await response.text();
    expect(body).not.toContain('<script>document');
    expect(body).toContain('not one of the image types crawlite serves');
  });

  it('a capture without a screenshot, and a URL not archived, answer 404', async () => {
    expect((await fetch(ui(`/screenshot?url=${q('/plain')}`))).status).toBe(404);
    expect((await fetch(ui(`/screenshot?url=${q('/never')}`))).status).toBe(404);
    expect((await fetch(ui('/screenshot'))).status).toBe(400);
  });

  it('the capture page shows its capture’s screenshot, says why a refused one is not shown, and has no section without one', async () => {
    const shot = await (await fetch(ui(`/capture?url=${q('/shot')}`))).text();
    const fetchedAt = /fetched <time datetime="([^"]+)"/.exec(shot)![1]!;
    expect(shot).toContain(`<img id="screenshot" src="/screenshot?url=${q('/shot')}&amp;ts=${captureTimestamp(fetchedAt)}"`);
    const hostile = await (await fetch(ui(`/capture?url=${q('/hostile')}`))).text();
    expect(hostile).toContain('id="screenshot-refused"');
    expect(hostile).not.toContain('<img id="screenshot"');
    const plain = await (await fetch(ui(`/capture?url=${q('/plain')}`))).text();
    expect(plain).not.toContain('<h2>Screenshot</h2>');
  });

  it("an earlier capture keeps its own screenshot: shown on its page and served at its time, not on the latest capture's", async () => {
    const earlier = await (await fetch(ui(`/capture?url=${q('/recrawled')}&ts=${earlierTimestamp}`))).text();
    expect(earlier).toContain(`<img id="screenshot" src="/screenshot?url=${q('/recrawled')}&amp;ts=${earlierTimestamp}"`);
    const image = await fetch(ui(`/screenshot?url=${q('/recrawled')}&ts=${earlierTimestamp}`));
    expect(Buffer.compare(Buffer.from(await image.arrayBuffer()), earlierPng)).toBe(0);
    expect(await (await fetch(ui(`/capture?url=${q('/recrawled')}`))).text()).not.toContain('<h2>Screenshot</h2>');
    expect((await fetch(ui(`/screenshot?url=${q('/recrawled')}`))).status).toBe(404);
  });

  it('the URL list marks the URLs whose latest capture has a screenshot of an image type, linking to it', async () => {
    const list = await (await fetch(ui('/urls'))).text();
    const marked = [...list.matchAll(/<a class="screenshot-mark" href="([^"]+)"/g)].map((match) => match[1]);
    expect(marked).toEqual([`/screenshot?url=${q('/shot')}`]);
  });
});

describe.skipIf(!HAS_CHROMIUM)('screenshots in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('the capture page loads the screenshot under the UI’s policy, and the URL list’s mark opens it', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(ui(`/capture?url=${q('/shot')}`));
      const image = page.locator('img#screenshot');
      await image.scrollIntoViewIfNeeded();
      // The image decoded: served by the UI origin, under its img-src 'self'.
      const decodedWidth = () => image.evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth);
      await expect.poll(decodedWidth, { timeout: 10_000 }).toBe(40);

      await page.goto(ui('/urls'));
      const opened = await page.request.get(ui((await page.locator('a.screenshot-mark').getAttribute('href'))!));
      expect(opened.headers()['content-type']).toBe('image/png');
      await page.locator('a.screenshot-mark').click();
      await expect.poll(() => page.evaluate('document.contentType')).toBe('image/png');
    } finally {
      await context.close();
    }
  });
});
