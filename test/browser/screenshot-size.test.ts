import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { imageSize } from '../support/image-size.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';

noticeIfNoBrowser('browser/screenshot-size');

// The screenshot of a rendered page is the viewport as docs/browser.md says: 1280x800.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe.skipIf(!HAS_CHROMIUM)("a rendered page's screenshot", () => {
  let site: TestServer;
  const db = tmp.path('shots.sqlite');
  beforeAll(async () => {
    site = await startServer(routes({ '/': html('<h1>Screenshot</h1><p style="height: 3000px">tall</p>') }));
    const crawl = await runCli(['crawl', site.url, '--db', db, '--browser', '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
  }, 60_000);
  afterAll(() => site?.close());

  it('is the whole viewport, 1280x800', () => {
    const [shot] = readArchive<{ type: string; data: Buffer }>(db, 'SELECT type, data FROM screenshots WHERE url = ?', site.url);
    expect(shot).toBeDefined();
    expect(imageSize(shot!.data)).toEqual({ width: 1280, height: 800 });
  });
});
