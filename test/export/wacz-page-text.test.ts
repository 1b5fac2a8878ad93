import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli, runCli } from '../support/cli.js';
import { html, routes, startServer, text, type TestServer } from '../support/test-server.js';
import { readZip } from '../support/zip-read.js';

// A WACZ's pages.jsonl carries each page's visible text, as Browsertrix's `--text to-pages` writes it
// (a `text` field), so ReplayWeb.page's page search finds what crawlite's own search finds.

let site: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
let pages: Array<{ url: string; title?: string; text?: string }>;

beforeAll(async () => {
  site = await startServer(
    routes({
      '/': html(
        '<h1>Orchard</h1><p>We grow <b>quinces</b> and medlars.</p><a href="/about">about</a> <a href="/notes.txt">notes</a>',
        'Home',
      ),
      '/about': html('<p>Open on Saturdays, near the old mill.</p><script>var hidden = "not text";</script>', 'About'),
      '/notes.txt': text('plain notes, not a page'),
    }),
  );
  expect((await runCli(['crawl', site.url, '--db', db, '-q'])).code).toBe(0);
  const wacz = tmp.path('site.wacz');
  expect((await execCli(['export', db, '--wacz', wacz, '-q'])).code).toBe(0);
  const entry = readZip(readFileSync(wacz)).find((e) => e.name === 'pages/pages.jsonl')!;
  pages = entry
    .data()
    .toString('utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as (typeof pages)[number]);
});

afterAll(async () => {
  await site.close();
  tmp.cleanup();
});

describe('pages.jsonl in a WACZ', () => {
  it("gives each page's visible text, the text crawlite's search indexes", () => {
    const indexed = readArchive<{ url: string; body: string }>(db, 'SELECT url, body FROM page_text ORDER BY url');
    expect(pages.map((page) => [page.url, page.text])).toEqual(indexed.map((row) => [row.url, row.body]));
    const about = pages.find((page) => page.url === `${site.url}about`)!;
    expect(about.text).toContain('Open on Saturdays, near the old mill.');
    expect(about.text).not.toContain('hidden');
    expect(pages.find((page) => page.url === site.url)!.text).toContain('We grow quinces and medlars.');
  });
});
