import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServingArchive } from '../../src/serve/serve-archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { crawlAndServe, type ServedCrawl } from '../support/served-crawl.js';
import { startServer } from '../support/test-server.js';

// A site's own search, as Sphinx builds it: a form that GETs `search.html?q=...&check_keywords=yes&area=default`,
// and a page whose script reads the query and searches an index it fetches. The crawl stored
// `search.html` and its index, never a query of it; replayed, the form still lands on the search page
// (a capture of the same file with another query or none, as pywb's default fuzzy rule does), which
// finds the word, and the replay bar says it is a fuzzy match.

noticeIfNoBrowser('serve/replay-site-search-browser');

const INDEX = { json: 'JSON page', yaml: 'YAML page' };

const SEARCH_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>search</title></head><body>
<p id="results">searching</p>
<script>
  var q = new URLSearchParams(location.search).get('q');
  fetch('searchindex.json').then(function (r) { return r.json(); }).then(function (index) {
    document.getElementById('results').textContent = q && index[q] ? 'found ' + q + ' in: ' + index[q] : 'nothing for ' + q;
  });
</script></body></html>`;

const HOME = `<!doctype html><html><head><meta charset="utf-8"><title>docs</title></head><body>
<form id="search" action="search.html" method="get"><input name="q"><input type="hidden" name="check_keywords" value="yes"><input type="hidden" name="area" value="default"><button>go</button></form>
</body></html>`;

describe.skipIf(!HAS_CHROMIUM)("replay of a site's own search form", () => {
  let origin: string;
  let served: ServedCrawl;
  let serving: ServingArchive;
  let browser: Browser;

  beforeAll(async () => {
    const site = await startServer((_req, res, path) => {
      const pathname = path.split('?')[0];
      if (pathname === '/index.html') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HOME);
      if (pathname === '/search.html') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SEARCH_PAGE);
      if (pathname === '/searchindex.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(INDEX));
      return res.writeHead(404).end();
    });
    origin = site.url.replace(/\/$/, '');
    served = await crawlAndServe('site-search.sqlite', [`${origin}/index.html`, `${origin}/search.html`, `${origin}/searchindex.json`]);
    ({ serving, browser } = served);
    await site.close();
  }, 60_000);

  afterAll(async () => {
    await served?.close();
  });

  it('the search form lands on the archived search page, which finds the word; the bar says it is a fuzzy match', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${serving.uiUrl}replay?url=${encodeURIComponent(`${origin}/index.html`)}`);
      const frame = page.frameLocator('#replay');
      await frame.locator('#search input[name=q]').fill('json');
      await frame.locator('#search button').click();
      await expect
        .poll(
          () =>
            frame
              .locator('#results')
              .textContent()
              .catch(() => ''),
          { timeout: 10_000 },
        )
        .toBe('found json in: JSON page');
      await expect.poll(() => page.locator('#replay-fuzzy').isVisible(), { timeout: 10_000 }).toBe(true);
      expect(await page.locator('#replay-fuzzy').textContent()).toBe(`fuzzy match: showing a capture of ${origin}/search.html`);
      expect(await page.locator('#replay-url').textContent()).toBe(`${origin}/search.html`);
    } finally {
      await context.close();
    }
  });

  it("the search page's URL opened in the UI shows the search page and names the URL asked for as a fuzzy match", async () => {
    const asked = `${origin}/search.html?q=yaml&check_keywords=yes&area=default`;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${serving.uiUrl}replay?url=${encodeURIComponent(asked)}`);
      await expect
        .poll(
          () =>
            page
              .frameLocator('#replay')
              .locator('#results')
              .textContent()
              .catch(() => ''),
          { timeout: 10_000 },
        )
        .toBe('found yaml in: YAML page');
      expect(await page.locator('#replay-url').textContent()).toBe(asked);
      expect(await page.locator('#replay-fuzzy').isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });
});
