import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServingArchive } from '../../src/serve/serve-archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { crawlAndServe, type ServedCrawl } from '../support/served-crawl.js';
import { READS, startRoutedApp } from '../support/routed-app-site.js';

// An app that routes on its address, crawled, its site stopped, then replayed in Chromium as a reader
// sees it (the UI's replay page, the capture in its frame): each page sees the address it was
// captured at, in location, document.URL/documentURI/baseURI and referrer, keeps it through
// history.pushState, opens at the route its fragment names, and its fetches resolve against it.

noticeIfNoBrowser('serve/replay-own-address-browser');

describe.skipIf(!HAS_CHROMIUM)('a replayed page sees its own address', () => {
  let origin: string;
  let served: ServedCrawl;
  let serving: ServingArchive;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    const site = await startRoutedApp();
    origin = site.url.replace(/\/$/, '');
    const roots = ['/index.html', '/hash.html', '/api/data.json', '/pkgs/data.json', '/data.json', '/api/x.json'].map(
      (path) => origin + path,
    );
    served = await crawlAndServe('routed.sqlite', roots);
    ({ serving, browser } = served);
    await site.close();
  }, 60_000);

  afterAll(async () => {
    await served?.close();
  });

  /** The UI's replay page of `url`, and the frame holding the capture. */
  async function openReplay(url: string): Promise<{ page: Page; frame: Frame }> {
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${serving.uiUrl}replay?url=${encodeURIComponent(url)}`);
    const frame = await (await page.locator('iframe#replay').elementHandle())!.contentFrame();
    return { page, frame: frame! };
  }

  /** What the app wrote into each of `ids`, once none says "waiting" any more. */
  async function shown(frame: Frame, ids: readonly string[]): Promise<Record<string, string>> {
    let values: Record<string, string> = {};
    await expect
      .poll(
        async () => {
          values = Object.fromEntries(
            await Promise.all(
              ids.map(
                async (id) =>
                  [
                    id,
                    (await frame
                      .locator(`#${id}`)
                      .textContent({ timeout: 2000 })
                      .catch(() => 'waiting')) ?? '',
                  ] as const,
              ),
            ),
          );
          return Object.values(values).every((value) => value !== 'waiting');
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    return values;
  }

  it('a page reached by a link routes on its captured path, and reads its captured URL, search, hash, base, referrer and fetches', async () => {
    try {
      const { frame } = await openReplay(`${origin}/index.html`);
      expect((await shown(frame, ['route']))['route']).toBe('ROUTE:/index.html');
      await frame.locator('#to-x').click();
      await expect.poll(() => frame.locator('title').textContent(), { timeout: 10_000 }).toBe('x');
      expect(await shown(frame, READS)).toEqual({
        route: 'ROUTE:/pkgs/x.html',
        search: '?q=1',
        hash: '#sec',
        url: `${origin}/pkgs/x.html?q=1#sec`,
        'document-uri': `${origin}/pkgs/x.html?q=1#sec`,
        base: `${origin}/pkgs/x.html?q=1#sec`,
        referrer: `${origin}/index.html`,
        'fetch-root': 'root-data',
        'fetch-relative': 'pkgs-data',
        'fetch-absolute': 'api-x',
      });
    } finally {
      await context.close();
    }
  });

  it('history.pushState of a root-relative URL moves the path as it did live, and keeps its state', async () => {
    try {
      const { frame } = await openReplay(`${origin}/pkgs/x.html?push=1`);
      expect(await shown(frame, ['pushed-path', 'pushed-state', 'pushed-url', 'route'])).toEqual({
        'pushed-path': '/other',
        'pushed-state': '{"n":1}',
        'pushed-url': `${origin}/other`,
        route: 'ROUTE:/pkgs/x.html',
      });
    } finally {
      await context.close();
    }
  });

  it('a URL with a fragment opens the app at the route the fragment names; the capture is found without it', async () => {
    try {
      const { page, frame } = await openReplay(`${origin}/hash.html#/pkgs/x`);
      expect(await shown(frame, ['hash-route', 'route', 'url'])).toEqual({
        'hash-route': 'HASH:/pkgs/x',
        route: 'ROUTE:/hash.html',
        url: `${origin}/hash.html#/pkgs/x`,
      });
      expect(await page.locator('#replay-missing').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
