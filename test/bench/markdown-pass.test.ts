// The bench's Markdown-on row: `crawlite markdown` of a copy of a crawled archive, measured as a child process,
// leaves the crawled archive as it was; "on" is the crawl's pages over the two commands' wall time.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlThenMarkdown, measureMarkdownPass } from '../../scripts/bench/markdown-pass.mjs';
import { BIN } from '../support/cli.js';
import { readArchive, tempDir } from '../support/archive.js';
import { crawlTeaSite } from '../support/tea-site.js';
import type { TestServer } from '../support/test-server.js';

const tmp = tempDir();
let server: TestServer;
let db: string;

const ARTICLE = `<main><h1>The guide</h1><p>Steep green tea for two minutes in water at eighty degrees; black tea wants boiling water.</p></main>`;

beforeAll(async () => {
  db = tmp.path('site.sqlite');
  server = await crawlTeaSite(db, ARTICLE);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

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
