import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium } from '../support/browser.js';
import { noticeIfNoReplayWebPage, REPLAYWEBPAGE_DIR } from '../support/replaywebpage.js';
import { execCli, runCli } from '../support/cli.js';
import { rawRecord } from '../support/raw-warc.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';
import { sleep } from '../support/wait.js';

// ReplayWeb.page itself (the npm package's ui.js and sw.js, wabac inside) replays a WACZ crawlite
// exported, in Chromium: a page a re-crawl revalidated (a 304) shows its payload at crawl 2's time
// (a server-not-modified revisit showed an empty page), a directory-style page shows, and a page's
// script that POSTs JSON gets the captured answer.

noticeIfNoReplayWebPage('test/export/replaywebpage.test.ts');
const uiDirectory = REPLAYWEBPAGE_DIR;
const describeReplay = HAS_CHROMIUM && uiDirectory ? describe : describe.skip;

const SAME = html('<p>SAME-PAYLOAD, unchanged between crawls</p>', 'Same');
const FORM = html(
  `<p>Form page</p><div id="out"></div><script>
fetch('/api', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"2"}' })
  .then((r) => r.text()).then((t) => { document.getElementById('out').textContent = t; });
</script>`,
  'Form',
);

let site: TestServer;
let replay: Server;
let browser: Browser;
let origin: string;
let revalidatedAt: string;
const tmp = tempDir();

beforeAll(async () => {
  if (!HAS_CHROMIUM || !uiDirectory) return;
  site = await startServer(
    routes({
      '/': html('<a href="/docs/guide/">guide</a> <a href="/same">same</a> <a href="/form">form</a>', 'Home'),
      '/docs/guide/': html('<p>GUIDE-PAYLOAD, a directory-style page</p>', 'Guide'),
      '/same': (hit) => (hit === 1 ? { ...SAME, headers: { ...SAME.headers, etag: '"v1"' } } : { status: 304, headers: { etag: '"v1"' } }),
      '/form': FORM,
    }),
  );
  const db = tmp.path('site.sqlite');
  expect((await runCli(['crawl', site.url, '--db', db, '-q'])).code).toBe(0);
  // A CDXJ timestamp has seconds: a 304 in the same second as the capture it confirms could not be told from it.
  const firstAt = Date.parse(
    readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM pages WHERE url = ?', `${site.url}same`)[0]!.fetched_at,
  );
  await sleep(Math.max(0, (Math.floor(firstAt / 1000) + 1) * 1000 - Date.now()) + 50);
  expect((await runCli(['recrawl', db, '-q'])).code).toBe(0);
  revalidatedAt = readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM captures WHERE revalidated = 1')[0]!.fetched_at;
  // The answer to the page's POST, as a browser crawl or another crawler's WARC would hold it.
  const api = `${site.url}api`;
  const body = '{"id":"2"}';
  const warc = tmp.path('post.warc');
  writeFileSync(
    warc,
    Buffer.concat([
      rawRecord(
        'request',
        api,
        revalidatedAt,
        `POST /api HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ),
      rawRecord('response', api, revalidatedAt, 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nPOSTED-ANSWER'),
    ]),
  );
  expect((await runCli(['import', warc, '--db', db, '-q'])).code).toBe(0);
  const wacz = tmp.path('site.wacz');
  expect((await execCli(['export', db, '--wacz', wacz, '-q'])).code).toBe(0);

  const files: Record<string, [string, string]> = {
    '/ui.js': [join(uiDirectory, 'ui.js'), 'application/javascript'],
    '/replay/sw.js': [join(uiDirectory, 'sw.js'), 'application/javascript'],
    '/site.wacz': [wacz, 'application/zip'],
  };
  replay = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://replay');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      const ts = url.searchParams.get('ts');
      return res.end(
        `<!doctype html><script src="/ui.js"></script><replay-web-page source="/site.wacz" url="${url.searchParams.get('url')}"${ts ? ` ts="${ts}"` : ''} embed="replayonly" replayBase="/replay/"></replay-web-page>`,
      );
    }
    const file = files[url.pathname];
    if (!file) {
      res.writeHead(404);
      return res.end();
    }
    // ReplayWeb.page reads a WACZ by ranges.
    const data = readFileSync(file[0]);
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range?.[2] ? Math.min(Number(range[2]), data.length - 1) : data.length - 1;
    res.writeHead(range ? 206 : 200, {
      'content-type': file[1],
      'accept-ranges': 'bytes',
      'content-length': end - start + 1,
      ...(range ? { 'content-range': `bytes ${start}-${end}/${data.length}` } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : data.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => replay.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(replay.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (replay) {
    replay.closeAllConnections();
    await new Promise<void>((resolve) => replay.close(() => resolve()));
  }
  await site?.close();
  tmp.cleanup();
});

/** The text of the replayed page's frame once it holds `expected`, or what it held when the wait ran out. */
async function replayedText(url: string, expected: string, ts?: string): Promise<string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/?url=${encodeURIComponent(url)}${ts ? `&ts=${ts}` : ''}`);
    let text = '';
    for (let tries = 0; tries < 80 && !text.includes(expected); tries++) {
      await page.waitForTimeout(250);
      for (const frame of page.frames()) {
        if (!frame.url().includes('mp_/')) continue;
        text = await frame.evaluate<string>("document.body ? document.body.innerText : ''").catch(() => text);
        if (text.includes(expected)) break;
      }
    }
    return text;
  } finally {
    await context.close();
  }
}

describeReplay('ReplayWeb.page replaying an exported WACZ', () => {
  // One test: the directory-style page and the POST replayed in ReplayWeb.page before too (it keys captures by
  // URL, and matches a POST's JSON loosely); what it could not show was the revalidated page.
  it("shows a re-crawl's revalidated page with its payload at the 304's time, a directory-style page, and a page's JSON POST answered", async () => {
    expect(await replayedText(`${site.url}same`, 'SAME-PAYLOAD', revalidatedAt.replace(/[-:T]/g, '').slice(0, 14))).toContain(
      'SAME-PAYLOAD',
    );
    expect(await replayedText(`${site.url}docs/guide/`, 'GUIDE-PAYLOAD')).toContain('GUIDE-PAYLOAD');
    expect(await replayedText(`${site.url}form`, 'POSTED-ANSWER')).toContain('POSTED-ANSWER');
  }, 75_000);
});
