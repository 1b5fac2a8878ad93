import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRenderer } from '../../src/browser/index.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { renderJob } from '../support/render-job.js';
import { serverPool, type TestServer } from '../support/test-server.js';

noticeIfNoBrowser('browser/restart-captured');

// Chromium is replaced every N pages (here every page). A requisite captured by a page of an earlier
// browser is neither captured again nor asked of the site again by the pages of the next ones.

(HAS_CHROMIUM ? describe : describe.skip)('a requisite across browser restarts', { timeout: 120_000 }, () => {
  const pool = serverPool();
  let site: TestServer;
  const STYLE = 'p { color: rgb(200, 10, 10) }';

  beforeAll(async () => {
    site = await pool.serve((_req, res, path) => {
      // No validators, no freshness: a browser's cache could not answer for it.
      if (path === '/style.css') return res.writeHead(200, { 'content-type': 'text/css', 'cache-control': 'no-store' }).end(STYLE);
      res.writeHead(404).end();
    });
  });
  afterAll(() => pool.closeAll());
  /** Writes the colour the stylesheet gave the paragraph into the DOM, which the render returns. */
  const SHOW_COLOUR = `<script>addEventListener('load', () => { document.body.dataset.colour = getComputedStyle(document.getElementById('p')).color; });</script>`;

  const page = (name: string) =>
    renderJob(`${site.url}${name}.html`, `<!doctype html><link rel="stylesheet" href="/style.css"><p id="p">${name}</p>${SHOW_COLOUR}`);

  it('is captured once and fetched once, and every page still gets it', async () => {
    const renderer = createRenderer({ restartAfterPages: 1, networkIdleMs: 1000, scrollMs: 1000, screenshot: false });
    const pids = new Set<number | undefined>();
    let captures = 0;
    try {
      for (const name of ['one', 'two', 'three']) {
        const rendered = await renderer.render(page(name), new AbortController().signal);
        pids.add(renderer.browserPid());
        captures += rendered.exchanges.filter((exchange) => exchange.url === `${site.url}style.css`).length;
        // The stylesheet reached every page, from the site or from what was captured.
        expect(rendered.html).toContain('data-colour="rgb(200, 10, 10)"');
      }
    } finally {
      await renderer.close();
    }
    // Three browsers, one after another.
    expect(pids.size).toBe(3);
    expect(captures).toBe(1);
    expect(site.hitCount('/style.css')).toBe(1);
  });
});
