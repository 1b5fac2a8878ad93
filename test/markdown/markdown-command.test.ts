import { describe, expect, it } from 'vitest';
import { openArchive } from '../../src/library/index.js';
import { runCli } from '../support/cli.js';
import { readArchive } from '../support/archive.js';
import { useCrawledTeaSite } from '../support/tea-site.js';

// `crawlite markdown` stores each HTML page's main content as Markdown: the page_markdown view, and the library's reader.

const ARTICLE = `<nav><a href="/">Home</a> <a href="/guide">Menu entry</a></nav>
<main><h1>The guide</h1><p>Steep green tea for two minutes in water at eighty degrees; black tea wants boiling water and four minutes.</p>
<h2>Steps</h2><ol><li>Boil the water</li><li>Pour it on the <a href="/leaves">leaves</a></li></ol></main>
<footer>Footer of every page</footer>`;

const site = useCrawledTeaSite(ARTICLE);
const { tmp, db } = site;

describe('crawlite markdown', () => {
  it('fills page_markdown for every HTML page, and a second run has nothing to do', async () => {
    expect(readArchive(db, 'SELECT count(*) AS n FROM page_markdown')).toEqual([{ n: 0 }]);
    const run = await runCli(['markdown', db]);
    expect(run).toMatchObject({ code: 0, stderr: 'markdown: 3 of 3 pages\n' });
    expect(run.stdout).toMatch(/^converted 3 pages to Markdown in [\d.]+ s/);
    const [guide] = readArchive(db, 'SELECT url, title, markdown, fetched_at FROM page_markdown WHERE url = ?', `${site.url}guide`) as {
      markdown: string;
      title: string;
      fetched_at: string;
    }[];
    expect(guide!.title).toBe('Guide');
    expect(guide!.markdown).toMatch(/^## Steps$/m);
    expect(guide!.markdown).toMatch(/^1\. +Boil the water$/m);
    expect(guide!.markdown).toContain(`[leaves](${site.url}leaves)`);
    expect(guide!.markdown).not.toContain('Menu entry');
    expect(guide!.markdown).not.toContain('Footer of every page');
    const pages = readArchive(db, 'SELECT fetched_at FROM pages WHERE url = ?', `${site.url}guide`) as { fetched_at: string }[];
    expect(guide!.fetched_at).toBe(pages[0]!.fetched_at);

    const again = await runCli(['markdown', db]);
    expect(again.stdout).toMatch(/^converted 0 pages/);
  });

  it("the library's reader hands a page's Markdown back", () => {
    const reader = openArchive(db);
    try {
      expect(reader.markdown(`${site.url}leaves`)).toMatchObject({
        url: `${site.url}leaves`,
        title: 'Leaves',
        markdown: 'Leaves of the tea plant, dried.',
      });
      expect(reader.markdown(`${site.url}nowhere`)).toBeUndefined();
    } finally {
      reader.close();
    }
  });

  it('a file that is not an archive is refused in one line', async () => {
    const run = await runCli(['markdown', tmp.path('missing.sqlite')]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toBe(`crawlite: ${tmp.path('missing.sqlite')}: no such archive\n`);
  });
});
