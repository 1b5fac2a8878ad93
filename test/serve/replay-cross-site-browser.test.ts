import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServingArchive } from '../../src/serve/serve-archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { crawlAndServe, type ServedCrawl } from '../support/served-crawl.js';
import { startServer, type TestServer } from '../support/test-server.js';

// Two archived sites, each replayed on its own host: a page of A reads JSON captured from B as it
// did live (B's host answers A's with CORS), and frames a page of B, which keeps its DOM and its
// storage to itself: A's script can read neither, as live, because they are two origins.

noticeIfNoBrowser('serve/replay-cross-site-browser');

const html = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>page</title></head><body>${body}</body></html>`;

/** B: a page that keeps a secret in its DOM and its localStorage, and JSON for A to read. */
async function startSiteB(): Promise<TestServer> {
  return startServer((_req, res, path) => {
    if (path === '/frame.html') {
      return res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          html(
            `<p id="secret">b-dom-secret</p><p id="stored">waiting</p><script>var stored; try { localStorage.setItem('b-secret', 'b-storage-secret'); stored = 'stored: ' + localStorage.getItem('b-secret'); } catch (e) { stored = 'storage: ' + e.name; } document.getElementById('stored').textContent = stored; parent.postMessage('b-ready', '*');</script>`,
          ),
        );
    }
    if (path === '/data.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'from-b' }));
    return res.writeHead(404).end();
  });
}

/** A: fetches B's JSON, frames B's page, and once it is ready tries to read B's DOM and storage. */
async function startSiteA(b: string): Promise<TestServer> {
  const page = html(`<p id="cross">waiting</p><p id="dom">waiting</p><p id="storage">waiting</p>
<iframe id="b" src="${b}/frame.html"></iframe>
<script>
  function show(id, value) { document.getElementById(id).textContent = value; }
  fetch('${b}/data.json').then(function (r) { return r.json(); }).then(function (j) { show('cross', j.name); }, function (e) { show('cross', 'failed: ' + e.name); });
  window.addEventListener('message', function (event) {
    if (event.data !== 'b-ready') return;
    try { show('dom', 'read: ' + document.getElementById('b').contentWindow.document.getElementById('secret').textContent); }
    catch (e) { show('dom', 'blocked: ' + e.name); }
    show('storage', 'own storage holds: ' + localStorage.getItem('b-secret'));
  });
</script>`);
  return startServer((_req, res, path) => {
    if (path === '/a.html') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    return res.writeHead(404).end();
  });
}

describe.skipIf(!HAS_CHROMIUM)('two archived sites in replay', () => {
  let a: string;
  let served: ServedCrawl;
  let serving: ServingArchive;
  let browser: Browser;

  beforeAll(async () => {
    const siteB = await startSiteB();
    const b = siteB.url.replace(/\/$/, '');
    const siteA = await startSiteA(b);
    a = siteA.url.replace(/\/$/, '');
    served = await crawlAndServe('two-sites.sqlite', [`${a}/a.html`, `${b}/frame.html`, `${b}/data.json`]);
    ({ serving, browser } = served);
    await Promise.all([siteA.close(), siteB.close()]);
  }, 60_000);

  afterAll(async () => {
    await served?.close();
  });

  it("a page of A reads JSON captured from B, and can read neither B's DOM nor B's storage", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${serving.uiUrl}replay?url=${encodeURIComponent(`${a}/a.html`)}`);
      const frame = page.frameLocator('#replay');
      const read = async () =>
        Promise.all(
          ['cross', 'dom', 'storage'].map((id) =>
            frame
              .locator(`#${id}`)
              .textContent()
              .catch(() => 'waiting'),
          ),
        );
      await expect.poll(async () => (await read()).includes('waiting'), { timeout: 15_000 }).toBe(false);
      expect(await read()).toEqual(['from-b', 'blocked: SecurityError', 'own storage holds: null']);
      // B's page did run, and keeps its secret in its own storage (a first party in the UI's frame, as live).
      expect(await frame.frameLocator('#b').locator('#stored').textContent()).toBe('stored: b-storage-secret');
    } finally {
      await context.close();
    }
  });
});
