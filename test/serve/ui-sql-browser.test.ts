import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSha256, readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser, recordRequests } from '../support/browser.js';
import { execCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import { keepScreenshot } from '../support/readme-screenshot.js';
import { startServe } from '../support/serve.js';

// The SQL page in Chromium: the query box, what clicking the schema does, a query's rows,
// refusals and the time limit as a reader meets them.

noticeIfNoBrowser('serve/ui-sql-browser');

const ENDLESS = 'with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n';

describe.skipIf(!HAS_CHROMIUM)('the SQL page in Chromium', () => {
  const tmp = tempDir();
  const db = tmp.path('site.sqlite');
  let browser: Browser;
  let serve: Awaited<ReturnType<typeof startServe>>;

  beforeAll(async () => {
    const site = await startLinkedSite(30);
    try {
      const crawl = await execCli(['crawl', site.url, '--db', db, '-q']);
      expect(crawl.code, crawl.stderr).toBe(0);
    } finally {
      await site.close();
    }
    // A wide limit: the query's process starts within it, on a loaded machine too.
    serve = await startServe(db, ['--search-timeout', '10000']);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    tmp.cleanup();
  });

  async function browse(check: (page: Page) => Promise<void>): Promise<void> {
    const context = await browser.newContext({ viewport: { width: 960, height: 640 } });
    const requests = recordRequests(context);
    try {
      await check(await context.newPage());
    } finally {
      await context.close();
    }
    expect(requests.outside([serve.ui])).toEqual([]);
  }

  /** Types a query into the box and runs it with Ctrl+Enter; the status of the page it leads to. */
  async function run(page: Page, sql: string): Promise<number | undefined> {
    await page.locator('#sql-box').fill(sql);
    const [response] = await Promise.all([page.waitForNavigation(), page.locator('#sql-box').press('Control+Enter')]);
    return response?.status();
  }

  it('runs a query typed in the box and shows its rows', async () => {
    await browse(async (page) => {
      await page.goto(`${serve.ui}`);
      await page.getByRole('link', { name: 'SQL', exact: true }).click();
      await page.waitForURL(/\/sql$/);
      expect(await run(page, 'select url, status from pages order by url')).toBe(200);
      const expected = readArchive<{ url: string; status: number }>(db, 'select url, status from pages order by url');
      await expect.poll(() => page.locator('#results tbody tr').count()).toBe(expected.length);
      expect(await page.locator('#results tbody tr').first().locator('td').allTextContents()).toEqual([
        expected[0]!.url,
        String(expected[0]!.status),
      ]);
      expect(await page.locator('#sql-box').inputValue()).toBe('select url, status from pages order by url');
    });
  });

  it("fills the box from a view's query button and types a column's name where the cursor is", async () => {
    await browse(async (page) => {
      await page.goto(`${serve.ui}sql`);
      await page.locator('#relations li[data-relation="links"] button.query').click();
      expect(await page.locator('#sql-box').inputValue()).toBe('select from_url, to_url, kind, nofollow\nfrom links\nlimit 100');
      await page.locator('#sql-box').fill('select  from urls');
      await page
        .locator('#sql-box')
        .evaluate((box: { setSelectionRange(start: number, end: number): void }) => box.setSelectionRange(7, 7));
      await page.locator('#relations li[data-relation="urls"] .columns button', { hasText: 'state' }).click();
      expect(await page.locator('#sql-box').inputValue()).toBe('select state from urls');
      await Promise.all([page.waitForNavigation(), page.locator('#run').click()]);
      expect(await page.locator('#results thead th').allTextContents()).toEqual(['state']);
      await expect.poll(() => page.locator('#results tbody tr').count()).toBe(readArchive(db, 'select 1 from urls').length);
    });
  });

  it('browses a view by clicking its name, and runs an example', async () => {
    await browse(async (page) => {
      await page.goto(`${serve.ui}sql`);
      await Promise.all([page.waitForNavigation(), page.locator('#relations li[data-relation="urls"] > a').click()]);
      expect(await page.locator('#browsing').textContent()).toBe('view urls');
      expect(await page.locator('#results tbody tr td:first-child').allTextContents()).toEqual(
        readArchive<{ url: string }>(db, 'select url from urls order by url').map((row) => row.url),
      );
      await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'most linked URLs' }).click()]);
      expect(await page.locator('#results thead th').allTextContents()).toEqual(['to_url', 'links']);
      const top = readArchive<{ links: number }>(db, 'select count(*) as links from links group by to_url order by links desc limit 1')[0]!;
      expect(await page.locator('#results tbody tr:first-child td:last-child').textContent()).toBe(String(top.links));
      await keepScreenshot(page, 'sql');
    });
  });

  it('refuses a write typed in the box and says so; the archive is unchanged', async () => {
    const before = fileSha256(db);
    const rows = readArchive(db, 'select count(*) as n from pages');
    await browse(async (page) => {
      await page.goto(`${serve.ui}sql`);
      expect(await run(page, 'delete from pages')).toBe(400);
      expect(await page.locator('#sql-error').textContent()).toBe('invalid SQL: cannot modify pages because it is a view');
      expect(await run(page, 'pragma writable_schema = 1')).toBe(400);
      expect(await page.locator('#sql-error').textContent()).toBe('query only reads: a PRAGMA that sets a value is refused');
      expect(await page.locator('#sql-box').inputValue()).toBe('pragma writable_schema = 1');
    });
    expect(fileSha256(db)).toBe(before);
    expect(readArchive(db, 'select count(*) as n from pages')).toEqual(rows);
  });

  it('stops a query that runs past its time limit and says so', async () => {
    await browse(async (page) => {
      await page.goto(`${serve.ui}sql`);
      expect(await run(page, ENDLESS)).toBe(503);
      expect(await page.locator('#sql-error').textContent()).toBe(
        'The query was stopped after 10 s, its time limit: narrow it, or run it with crawlite query.',
      );
    });
  });
});
