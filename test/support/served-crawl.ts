import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { tempDir } from './archive.js';
import { launchChromium } from './browser.js';
import { runCli } from './cli.js';

/** A crawl served by `crawlite serve` (in-process, on 127.0.0.1) and a Chromium to read it with. */
export interface ServedCrawl {
  serving: ServingArchive;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Crawls `roots` into a fresh archive named `name`, then serves it and starts Chromium: the set-up of
 * every replay test that reads pages as a reader does. Stop the crawled site yourself once this returns.
 */
export async function crawlAndServe(name: string, roots: string[]): Promise<ServedCrawl> {
  const tmp = tempDir();
  const db = tmp.path(name);
  const crawl = await runCli(['crawl', ...roots, '--db', db, '-q']);
  expect(crawl.code, crawl.stderr).toBe(0);
  const serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
  const browser = await launchChromium();
  return {
    serving,
    browser,
    async close() {
      await browser.close();
      await serving.close();
      tmp.cleanup();
    },
  };
}
