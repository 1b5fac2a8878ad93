import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { HAS_REPLAYWEBPAGE, noticeIfNoReplayWebPage, startReplayWebPage, type ReplayWebPage } from '../support/replaywebpage.js';
import { startServer, type TestServer } from '../support/test-server.js';

// crawlite's WACZ export opened in ReplayWeb.page itself: a site crawled, then crawled again while its logo,
// its data and a directory-style page stay the same (the server answers 304 to the second crawl). Replayed
// at the second crawl, the page must still show its logo and data, and the directory page its text.
noticeIfNoReplayWebPage('test/export/replaywebpage-replay.test.ts');

// A 2x2 PNG (red pixels), so the image has a width only when its payload arrived.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);
let version = 1;
const page = () =>
  `<!doctype html><html><head><title>home ${version}</title></head><body><h1>Home, version ${version}</h1>` +
  `<img id="logo" src="/logo.png" alt="logo"><p id="data">waiting</p><a href="/docs/guide/">guide</a> <a href="/data.json">data</a>` +
  `<script>fetch('/data.json').then(function (r) { return r.json(); }).then(function (d) { document.getElementById('data').textContent = 'data: ' + d.word; });</script></body></html>`;
const STATIC: Record<string, { type: string; body: Buffer; etag: string }> = {
  '/logo.png': { type: 'image/png', body: PNG, etag: '"logo-1"' },
  '/data.json': { type: 'application/json', body: Buffer.from('{"word":"unchanged-payload"}'), etag: '"data-1"' },
  '/docs/guide/': {
    type: 'text/html; charset=utf-8',
    body: Buffer.from('<!doctype html><title>Guide</title><h1>The directory-style guide</h1>'),
    etag: '"guide-1"',
  },
};

function handle(req: IncomingMessage, res: ServerResponse, path: string): void {
  if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page());
  const item = STATIC[path];
  if (!item) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  if (req.headers['if-none-match'] === item.etag) return void res.writeHead(304, { etag: item.etag }).end();
  res.writeHead(200, { 'content-type': item.type, etag: item.etag, 'content-length': item.body.length }).end(item.body);
}

const tmp = tempDir();
const db = tmp.path('site.sqlite');
const wacz = tmp.path('site.wacz');
let server: TestServer;
let viewer: ReplayWebPage;
let secondCrawl = '';

/** A capture's time as WACZ and CDXJ write it: 14 digits. */
const timestamp = (iso: string) => iso.replace(/\D/g, '').slice(0, 14);

beforeAll(async () => {
  if (!HAS_REPLAYWEBPAGE) return;
  server = await startServer(handle);
  const first = await execCli(['crawl', server.url, '--db', db, '-q']);
  expect(first.code, first.stderr).toBe(0);
  // The second crawl in a later second than the first, so the two have different 14-digit timestamps.
  const firstSecond = Math.floor(Date.now() / 1000);
  while (Math.floor(Date.now() / 1000) === firstSecond) await new Promise((resolve) => setTimeout(resolve, 50));
  version = 2;
  const second = await execCli(['recrawl', db, '-q']);
  expect(second.code, second.stderr).toBe(0);
  const revalidated = readArchive<{ url: string }>(db, 'SELECT url FROM captures WHERE crawl = 2 AND revalidated = 1');
  expect(revalidated.map((row) => new URL(row.url).pathname).sort()).toEqual(['/data.json', '/docs/guide/', '/logo.png']);
  secondCrawl = timestamp(
    readArchive<{ at: string }>(db, 'SELECT fetched_at AS at FROM captures WHERE crawl = 2 AND url = ?', server.url)[0]!.at,
  );
  const exported = await execCli(['export', db, '--wacz', wacz]);
  expect(exported.code, exported.stderr).toBe(0);
  viewer = await startReplayWebPage(wacz);
}, 120_000);

afterAll(async () => {
  await viewer?.close();
  await server?.close();
  tmp.cleanup();
});

describe.skipIf(!HAS_REPLAYWEBPAGE)('an export replayed in ReplayWeb.page', () => {
  it('shows the second crawl of a page with the payloads its 304s revalidated: the logo and the data', async () => {
    const frame = await viewer.open(server.url, secondCrawl);
    await frame
      .waitForFunction("document.getElementById('data')?.textContent !== 'waiting'", undefined, { timeout: 15_000 })
      .catch(() => undefined);
    expect(await frame.locator('h1').textContent()).toBe('Home, version 2');
    expect(await frame.locator('#data').textContent()).toBe('data: unchanged-payload');
    await frame.waitForFunction("document.getElementById('logo').complete", undefined, { timeout: 15_000 });
    expect(await frame.evaluate("document.getElementById('logo').naturalWidth")).toBe(2);
  }, 60_000);

  it('shows a directory-style page (a path ending in /) revalidated at the second crawl', async () => {
    const frame = await viewer.open(`${server.url}docs/guide/`, secondCrawl);
    expect(await frame.locator('h1').textContent()).toBe('The directory-style guide');
  }, 60_000);
});
