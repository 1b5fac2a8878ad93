import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser, recordRequests } from '../support/browser.js';
import { ChangingSite, type Served } from '../support/changing-site.js';
import { execCli } from '../support/cli.js';
import { keepScreenshot } from '../support/readme-screenshot.js';
import { startServe } from '../support/serve.js';
import { linksPage, startServer } from '../support/test-server.js';

// The changes page in Chromium, over two real crawls of a site that changed in between:
// from the overview to the counts and the list, and from a capture to its text diff.

noticeIfNoBrowser('serve/ui-changes-browser');

const SAME = ['/contact', '/team'];

function answer(path: string, version: number): Served | undefined {
  if (path === '/') return { body: linksPage([...SAME, '/about', '/prices', '/old', ...(version === 2 ? ['/news'] : [])]) };
  if (SAME.includes(path)) return { body: `<title>${path.slice(1)}</title><p>Nothing new at ${path}.</p>`, etag: `"${path}"` };
  if (path === '/about') {
    const hours = version === 1 ? '<p>Open daily, 9 to 5.</p>' : '<p>Open Monday to Saturday, 8 to 6.</p><p>Closed on Sundays.</p>';
    return { body: `<title>About us</title><h1>About us</h1><p>We sell fruit and vegetables.</p>${hours}<p>Find us by the station.</p>` };
  }
  if (path === '/prices') return { body: `<title>Prices</title><p>Apples: ${version === 1 ? '2.00' : '2.40'} a kilo.</p>` };
  if (path === '/old') return version === 1 ? { body: '<p>An old page.</p>' } : undefined;
  if (path === '/news') return { body: '<title>News</title><p>We now open at 8.</p>' };
  return undefined;
}

describe.skipIf(!HAS_CHROMIUM)('the changes page in Chromium', () => {
  const tmp = tempDir();
  const db = tmp.path('site.sqlite');
  let browser: Browser;
  let serve: Awaited<ReturnType<typeof startServe>>;
  let origin: string;

  beforeAll(async () => {
    const site = new ChangingSite(answer);
    const server = await startServer(site.handle);
    origin = server.url.replace(/\/$/, '');
    try {
      expect((await execCli(['crawl', server.url, '--db', db, '-q'])).code).toBe(0);
      site.version = 2;
      expect((await execCli(['recrawl', db, '-q'])).code).toBe(0);
    } finally {
      await server.close();
    }
    // The comparison runs in a process of its own: a limit that leaves room for it to start on a loaded machine.
    serve = await startServe(db, ['--search-timeout', '30000']);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    tmp.cleanup();
  });

  it('counts and lists what changed between the two crawls, and shows the text diff of one page', async () => {
    const context = await browser.newContext({ viewport: { width: 960, height: 640 } });
    const requests = recordRequests(context);
    try {
      const page = await context.newPage();
      await page.goto(serve.ui);
      await Promise.all([page.waitForNavigation(), page.locator('#changes-link').click()]);
      const count = (kind: string) => page.locator(`#change-counts tr[data-change="${kind}"] td.num`).textContent();
      expect([
        await count('new'),
        await count('changed'),
        await count('gone'),
        await count('unchanged'),
        await count('redirected'),
      ]).toEqual(['1', '3', '1', '3', '0']);
      const listed = await page
        .locator('#changes tbody tr')
        .evaluateAll((rows) => rows.map((row) => [row.querySelector('td.url')!.textContent, row.getAttribute('data-change')]));
      expect(listed).toEqual([
        [`${origin}/`, 'changed'],
        [`${origin}/about`, 'changed'],
        [`${origin}/news`, 'new'],
        [`${origin}/old`, 'gone'],
        [`${origin}/prices`, 'changed'],
      ]);
      await Promise.all([
        page.waitForNavigation(),
        page
          .locator('#changes tbody tr', { hasText: `${origin}/about` })
          .getByRole('link', { name: 'text diff' })
          .click(),
      ]);
      expect(await page.locator('#diff .del').allTextContents()).toEqual(['-Open daily, 9 to 5.']);
      expect(await page.locator('#diff .add').allTextContents()).toEqual(['+Open Monday to Saturday, 8 to 6.', '+Closed on Sundays.']);
      await keepScreenshot(page, 'changes');
    } finally {
      await context.close();
    }
    expect(requests.outside([serve.ui])).toEqual([]);
  });

  it("leads from a changed capture on the capture page's timeline to what changed", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${serve.ui}capture?url=${encodeURIComponent(`${origin}/prices`)}`);
      await Promise.all([page.waitForNavigation(), page.locator('#captures a.what-changed').click()]);
      expect(await page.locator('#diff .del').allTextContents()).toEqual(['-Apples: 2.00 a kilo.']);
      expect(await page.locator('#diff .add').allTextContents()).toEqual(['+Apples: 2.40 a kilo.']);
    } finally {
      await page.close();
    }
  });
});
