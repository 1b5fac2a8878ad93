import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRenderer, resolveChromium } from '../../src/browser/index.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { isRunning } from '../support/process-tree.js';
import { renderJob } from '../support/render-job.js';
import { serverPool, type TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

noticeIfNoBrowser('renderer-lifecycle.test.ts');

describe('finding Chromium', () => {
  it('refuses a path with no Chromium, with its code and what to install', () => {
    const dir = mkdtempSync(join(tmpdir(), 'crawlite-chromium-'));
    const notExecutable = join(dir, 'chromium');
    writeFileSync(notExecutable, '#!/bin/sh\n');
    chmodSync(notExecutable, 0o644);
    for (const path of [join(dir, 'missing'), notExecutable, dir]) {
      expect(() => createRenderer({ chromium: path })).toThrow(
        expect.objectContaining({ code: 'browser_missing', message: expect.stringContaining('apt-get install chromium') }),
      );
    }
    expect(() => resolveChromium(undefined, { CRAWLITE_CHROMIUM: join(dir, 'missing') })).toThrow(
      expect.objectContaining({ code: 'browser_missing', message: expect.stringContaining(join(dir, 'missing')) }),
    );
  });
});

// Chromium starts slowly on a loaded machine: room beyond the default minute.
(HAS_CHROMIUM ? describe : describe.skip)('the browser between pages', { timeout: 120_000 }, () => {
  const pool = serverPool();
  let site: TestServer;

  beforeAll(async () => {
    site = await pool.serve((_req, res, path) => {
      if (path === '/style.css') return res.writeHead(200, { 'content-type': 'text/css' }).end('p { color: red }');
      // A long poll that never answers: a page asking for it is held mid-load.
      if (path.startsWith('/poll')) return;
      res.writeHead(404).end();
    });
  });
  afterAll(() => pool.closeAll());

  const held = (name: string) => renderJob(`${site.url}${name}.html`, `<!doctype html><p>held</p><script>fetch('/poll?${name}')</script>`);
  const plain = (name: string) => renderJob(`${site.url}${name}.html`, `<!doctype html><p>${name} rendered</p>`);

  it('replaces a browser grown past restartAboveRssMb before the next page', async () => {
    // No Chromium fits in 1 MiB: every page is the last of its browser.
    const renderer = createRenderer({ restartAboveRssMb: 1, networkIdleMs: 1000, scrollMs: 1000, screenshot: false });
    try {
      await renderer.render(plain('memory-one'), new AbortController().signal);
      const first = renderer.browserPid();
      const second = await renderer.render(plain('memory-two'), new AbortController().signal);
      expect(second.html).toContain('memory-two rendered');
      expect(renderer.browserPid()).not.toBe(first);
    } finally {
      await renderer.close();
    }
  });

  it('stops a render, and one waiting for a tab, with CrawlStoppedError when their signals abort', async () => {
    const renderer = createRenderer({ tabs: 1, loadTimeoutMs: 60_000, networkIdleMs: 60_000, screenshot: false });
    try {
      const first = new AbortController();
      const queued = new AbortController();
      const rendering = renderer.render(held('stop-first'), first.signal);
      const waiting = renderer.render(held('stop-queued'), queued.signal);
      rendering.catch(() => undefined);
      waiting.catch(() => undefined);
      await waitFor('the first page to ask the site', () => site.hitCount('/poll?stop-first') > 0, 30_000);
      queued.abort();
      await expect(waiting).rejects.toMatchObject({ code: 'stopped' });
      first.abort();
      await expect(rendering).rejects.toMatchObject({ code: 'stopped' });
      // The queued page never reached the browser; the tab is free again.
      expect(site.hitCount('/poll?stop-queued')).toBe(0);
      const after = await renderer.render(plain('after-stop'), new AbortController().signal);
      expect(after.html).toContain('after-stop rendered');
    } finally {
      await renderer.close();
    }
  });

  it('fails a render with render_failed when Chromium dies under it, and relaunches for the next page', async () => {
    const renderer = createRenderer({ loadTimeoutMs: 60_000, networkIdleMs: 60_000, screenshot: false });
    try {
      const rendering = renderer.render(held('crash'), new AbortController().signal);
      rendering.catch(() => undefined);
      await waitFor('the page to ask the site', () => site.hitCount('/poll?crash') > 0, 30_000);
      const crashed = renderer.browserPid()!;
      process.kill(crashed, 'SIGKILL');
      await expect(rendering).rejects.toMatchObject({ code: 'render_failed' });
      const after = await renderer.render(plain('after-crash'), new AbortController().signal);
      expect(after.html).toContain('after-crash rendered');
      expect(renderer.browserPid()).not.toBe(crashed);
    } finally {
      await renderer.close();
    }
  });

  it('is replaced after restartAfterPages pages, every page rendered whole, and none of its processes outlives close()', async () => {
    const renderer = createRenderer({ restartAfterPages: 2, tabs: 2, networkIdleMs: 1000, scrollMs: 1000, screenshot: false });
    const pids: number[] = [];
    const rss: number[] = [];
    try {
      const pages = [];
      for (let i = 0; i < 5; i += 1) {
        pages.push(
          await renderer.render(
            renderJob(`${site.url}page-${i}.html`, `<!doctype html><link rel="stylesheet" href="/style.css"><p>page number ${i}</p>`),
            new AbortController().signal,
          ),
        );
        pids.push(renderer.browserPid()!);
        rss.push(renderer.browserRssBytes());
      }
      pages.forEach((page, i) => expect(page.html).toContain(`page number ${i}`));
      // What the crawl captured stays captured across browsers: the stylesheet is captured once (test/browser/restart-captured.test.ts).
      expect(pages.map((page) => page.exchanges.filter((exchange) => exchange.url.endsWith('/style.css')).length)).toEqual([1, 0, 0, 0, 0]);
      expect(new Set(pids).size).toBe(3);
      expect(pids.every((pid) => Number.isInteger(pid))).toBe(true);
      console.log(`Chromium resident after each page (MiB): ${rss.map((bytes) => Math.round(bytes / 1048576)).join(', ')}`);
    } finally {
      await renderer.close();
    }
    await waitFor('every Chromium of the renderer to be gone', () => pids.every((pid) => !isRunning(pid)), 15_000);
    expect(renderer.browserPid()).toBeUndefined();
  });
});
