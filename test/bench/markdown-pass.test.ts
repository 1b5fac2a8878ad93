// The bench's Markdown-on row: `crawlite markdown` of a copy of a crawled archive, measured as a child process,
// leaves the crawled archive as it was; "on" is the crawl's pages over the two commands' wall time.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { crawlThenMarkdown, measureMarkdownPass } from '../../scripts/bench/markdown-pass.mjs';
import { BIN } from '../support/cli.js';
import { readArchive } from '../support/archive.js';
import { useCrawledTeaSite } from '../support/tea-site.js';

const ARTICLE = `<main><h1>The guide</h1><p>Steep green tea for two minutes in water at eighty degrees; black tea wants boiling water.</p></main>`;

const site = useCrawledTeaSite(ARTICLE);
const { tmp, db } = site;

describe('the bench markdown pass', () => {
  it('converts every HTML page of a copy, measured, and leaves the crawled archive without Markdown', async () => {
    const dir = tmp.path('pass');
    mkdirSync(dir);
    const pass = await measureMarkdownPass(BIN, db, dir, { timeoutS: 120 });
    expect(pass).toMatchObject({ exitCode: 0, timedOut: false, pages: 3, empty: 0 });
    expect(pass.wallS).toBeGreaterThan(0);
    expect(pass.archive?.fileBytes).toBeGreaterThan(0);
    expect(readArchive(db, 'SELECT count(*) AS n FROM page_markdown')).toEqual([{ n: 0 }]);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(db)).toBe(true);
  });

  it('makes the Markdown-on run: the crawl pages over both walls, CPU added, the larger peak', () => {
    const on = crawlThenMarkdown(
      { exitCode: 0, wallS: 2, cpuS: 1, peakRssMB: 150, pages: 100, requests: 101 },
      { exitCode: 0, timedOut: false, wallS: 8, cpuS: 7.5, peakRssMB: 300, pages: 100 },
    );
    expect(on).toMatchObject({ exitCode: 0, wallS: 10, cpuS: 8.5, peakRssMB: 300, pages: 100, requests: 101 });
  });
});
