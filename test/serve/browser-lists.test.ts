import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser } from '../support/browser.js';
import { execCli } from '../support/cli.js';
import { LISTS_HOSTILE_TITLE, LISTS_LINKED_HOST, listsSiteRoutes } from '../support/lists-site.js';
import { routes, serverPool } from '../support/test-server.js';

noticeIfNoBrowser('serve/browser-lists');

// The UI's lists as a reader sees them in Chromium, in a time zone other than UTC.

/** UTC+05:30: a zone whose offset is not whole hours, so a shift by hours alone would show. */
const ZONE = 'Asia/Kolkata';
const OFFSET_MINUTES = 330;

/** What a reader in ZONE should read for a UTC instant: its wall-clock time there, and the zone. */
function kolkataText(iso: string): string {
  const shifted = new Date(Date.parse(iso) + OFFSET_MINUTES * 60_000).toISOString();
  return `${shifted.slice(0, 10)} ${shifted.slice(11, 19)} UTC+05:30`;
}

const mediaTypeOf = (contentType: string | null) => (contentType ?? '').split(';')[0]!.trim().toLowerCase() || '(none)';

describe.skipIf(!HAS_CHROMIUM)('the UI lists in Chromium', () => {
  const tmp = tempDir();
  const servers = serverPool();
  const archive = tmp.path('lists.sqlite');
  let siteUrl: string;
  let serving: ServingArchive;
  let browser: Browser;
  let context: BrowserContext;
  const dialogs: string[] = [];

  beforeAll(async () => {
    const site = await servers.serve(routes(listsSiteRoutes()));
    siteUrl = site.url;
    const crawl = await execCli(['crawl', site.url, '--db', archive, '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
    serving = await serveArchive({ path: archive, host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    context = await browser.newContext({ timezoneId: ZONE, viewport: { width: 1100, height: 800 } });
    // An archived title that ran as markup would say so here.
    context.on('page', (page) =>
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await serving?.close();
    await servers.closeAll();
    tmp.cleanup();
  });

  async function open(path: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(new URL(path, serving.uiUrl).href);
    return page;
  }

  /** The URLs of the URL table, in order (a cell starts with the URL, linked when archived). */
  const listedUrls = (page: Page) =>
    page.locator('table#urls tbody td.url').evaluateAll((cells) => cells.map((cell) => cell.firstChild?.textContent ?? ''));

  it("shows the URL list's fetch times in the reader's time zone, the UTC value on hover", async () => {
    const page = await open('/urls');
    const times = page.locator('table#urls td.time time');
    const fetched = readArchive<{ fetched_at: string }>(archive, 'SELECT fetched_at FROM pages');
    expect(await times.count()).toBe(fetched.length);
    const first = times.first();
    const iso = (await first.getAttribute('datetime'))!;
    await expect.poll(() => first.textContent()).toBe(kolkataText(iso));
    expect(await first.getAttribute('title')).toBe(new Date(iso).toISOString());
    expect(await first.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Every time on the page, not only the first.
    const all = await times.evaluateAll((nodes) =>
      nodes.map((node) => ({ iso: node.getAttribute('datetime')!, text: node.textContent, title: node.getAttribute('title') })),
    );
    for (const time of all) expect(time).toEqual({ iso: time.iso, text: kolkataText(time.iso), title: new Date(time.iso).toISOString() });
    await page.close();
  });

  it('shows titles and types, and a hostile title as text', async () => {
    const page = await open('/urls');
    const row = (path: string) =>
      page.locator('table#urls tbody tr', { has: page.locator(`td.url a[href$="${encodeURIComponent(`${siteUrl}${path}`)}"]`) });
    expect(await row('a').locator('td.title').textContent()).toBe('Page A');
    expect(await row('a').locator('td.type').textContent()).toBe('text/html');
    expect(await row('a').locator('td.type').getAttribute('title')).toBe('text/html; charset=utf-8');
    expect(await row('logo.png').locator('td.type').textContent()).toBe('image/png');
    expect(await row('hostile').locator('td.title').textContent()).toBe(LISTS_HOSTILE_TITLE);
    expect(await page.locator('table#urls script, table#urls img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('filters by a type chosen in the form, and pages through it: every URL of that type once, no other', async () => {
    const page = await open('/urls?limit=2');
    await page.locator('select[name=type]').selectOption('text/html');
    await Promise.all([page.waitForURL(/type=text%2Fhtml/), page.locator('#url-filters button[type=submit]').click()]);
    const expected = readArchive<{ url: string; content_type: string | null }>(archive, 'SELECT url, content_type FROM pages ORDER BY url')
      .filter((row) => mediaTypeOf(row.content_type) === 'text/html')
      .map((row) => row.url);
    expect(expected.length).toBeGreaterThan(4);
    const seen: string[] = [];
    for (let pages = 0; pages < 20; pages += 1) {
      seen.push(...(await listedUrls(page)));
      const next = page.locator('a#next');
      if ((await next.count()) === 0) break;
      await Promise.all([page.waitForURL(/after=/), next.click()]);
      expect(new URL(page.url()).searchParams.get('type')).toBe('text/html');
    }
    expect(seen).toEqual(expected);
    expect(await page.locator('select[name=type] option:checked').textContent()).toBe(`text/html (${expected.length})`);
    await page.close();
  });

  it('lists the hosts crawled first, and the hosts only linked to folded apart', async () => {
    const page = await open('/');
    const crawled = page.locator('table#hosts tbody tr');
    expect(await crawled.count()).toBe(1);
    expect(await crawled.first().locator('td').first().textContent()).toBe(siteUrl.replace(/\/$/, ''));
    const seen = page.locator('table#seen-hosts');
    expect(await seen.isVisible()).toBe(false);
    await page.locator('#seen-hosts-section summary').click();
    expect(await seen.isVisible()).toBe(true);
    expect(await seen.locator('tbody tr td').first().textContent()).toBe(LISTS_LINKED_HOST);
    // The overview's run times are local too.
    const time = page.locator('#roots time').first();
    await expect.poll(() => time.textContent()).toBe(kolkataText((await time.getAttribute('datetime'))!));
    await page.close();
  });
});
