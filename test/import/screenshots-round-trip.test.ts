import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { captureTimestamp } from '../../src/serve/replay-url.js';
import { readArchive, tempDir } from '../support/archive.js';
import { addCrawl } from '../support/captures.js';
import { runCli } from '../support/cli.js';
import { solidPng } from '../support/png.js';
import { addScreenshot } from '../support/screenshot-row.js';
import { html, routes, startServer } from '../support/test-server.js';

// Screenshots survive export -> import: an export writes each as a resource record `urn:view:<page URL>`
// dated like its page capture, and an import puts it back with that capture (same URL, same fetched_at),
// so the UI shows it as it did before.

const tmp = tempDir();
const crawled = tmp.path('crawled.sqlite');
const warc = tmp.path('crawled.warc.gz');
const imported = tmp.path('imported.sqlite');
const png = solidPng(30, 20, [1, 2, 250]);
const earlierPng = solidPng(10, 10, [250, 2, 1]);
let serving: ServingArchive;
let importOutput: string;

interface ShotRow {
  url: string;
  fetched_at: string;
  type: string;
  data: Buffer;
}
const shots = (db: string) => readArchive<ShotRow>(db, 'SELECT url, fetched_at, type, data FROM screenshots ORDER BY url, fetched_at');

beforeAll(async () => {
  const site = await startServer(
    routes({
      '/': html('<a href="/a">a</a> <a href="/c">c</a>', 'home'),
      '/a': html('a', 'A'),
      '/c': html('c', 'C'),
    }),
  );
  const crawl = await runCli(['crawl', site.url, '--db', crawled, '-q']);
  expect(crawl.code, crawl.stderr).toBe(0);
  await site.close();
  addScreenshot(crawled, new URL('/a', site.url).href, png);
  // A screenshot of /c's first capture, which a later crawl (without a browser) replaced.
  addScreenshot(crawled, new URL('/c', site.url).href, earlierPng);
  addCrawl(crawled, [
    { url: new URL('/c', site.url).href, fetchedAt: new Date(Date.now() + 60_000).toISOString(), body: '<p>c again</p>' },
  ]);
  const exported = await runCli(['export', crawled, '--warc', warc]);
  expect(exported.code, exported.stderr).toBe(0);
  const result = await runCli(['import', warc, '--db', imported]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  importOutput = result.stdout;
  serving = await serveArchive({ path: imported, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await serving?.close();
  tmp.cleanup();
});

describe('screenshots through export and import', () => {
  it('come back with the capture they show: same URL, same fetched_at, same type and bytes', () => {
    const before = shots(crawled);
    expect(before).toHaveLength(2);
    expect(shots(imported)).toEqual(before);
    expect(importOutput).toContain('screenshots: 2, each with the page capture it shows');
    expect(importOutput).not.toMatch(/other records passed over: .*resource/);
  });

  it('the UI serves them after the import, the earlier capture’s at its own time', async () => {
    const [a, c] = shots(imported);
    const latest = await fetch(new URL(`/screenshot?url=${encodeURIComponent(a!.url)}`, serving.uiUrl));
    expect(latest.status).toBe(200);
    expect(latest.headers.get('content-type')).toBe('image/png');
    expect(Buffer.compare(Buffer.from(await latest.arrayBuffer()), png)).toBe(0);
    const earlier = await fetch(
      new URL(`/screenshot?url=${encodeURIComponent(c!.url)}&ts=${captureTimestamp(c!.fetched_at)}`, serving.uiUrl),
    );
    expect(earlier.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await earlier.arrayBuffer()), earlierPng)).toBe(0);
  });
});
