import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_REPLAYWEBPAGE, noticeIfNoReplayWebPage, startReplayWebPage, type ReplayWebPage } from '../support/replaywebpage.js';
import { execCli, runCli } from '../support/cli.js';
import { rawRecord } from '../support/raw-warc.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';
import { sleep } from '../support/wait.js';

// ReplayWeb.page itself (the npm package's ui.js and sw.js, wabac inside) replays a WACZ crawlite
// exported, in Chromium: a page a re-crawl revalidated (a 304) shows its payload at crawl 2's time
// (a server-not-modified revisit showed an empty page), a directory-style page shows, and a page's
// script that POSTs JSON gets the captured answer.

noticeIfNoReplayWebPage('test/export/replaywebpage.test.ts');
const describeReplay = HAS_REPLAYWEBPAGE ? describe : describe.skip;

const SAME = html('<p>SAME-PAYLOAD, unchanged between crawls</p>', 'Same');
const FORM = html(
  `<p>Form page</p><div id="out"></div><script>
fetch('/api', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"2"}' })
  .then((r) => r.text()).then((t) => { document.getElementById('out').textContent = t; });
</script>`,
  'Form',
);

let site: TestServer;
let viewer: ReplayWebPage;
let revalidatedAt: string;
const tmp = tempDir();

beforeAll(async () => {
  if (!HAS_REPLAYWEBPAGE) return;
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

  viewer = await startReplayWebPage(wacz);
}, 60_000);

afterAll(async () => {
  await viewer?.close();
  await site?.close();
  tmp.cleanup();
});

describeReplay('ReplayWeb.page replaying an exported WACZ', () => {
  // One test: the directory-style page and the POST replayed in ReplayWeb.page before too (it keys captures by
  // URL, and matches a POST's JSON loosely); what it could not show was the revalidated page.
  it("shows a re-crawl's revalidated page with its payload at the 304's time, a directory-style page, and a page's JSON POST answered", async () => {
    const at = revalidatedAt.replace(/[-:T]/g, '').slice(0, 14);
    expect(await viewer.textOnFirstVisit(`${site.url}same`, 'SAME-PAYLOAD', at)).toContain('SAME-PAYLOAD');
    expect(await viewer.textOnFirstVisit(`${site.url}docs/guide/`, 'GUIDE-PAYLOAD')).toContain('GUIDE-PAYLOAD');
    expect(await viewer.textOnFirstVisit(`${site.url}form`, 'POSTED-ANSWER')).toContain('POSTED-ANSWER');
  }, 180_000);
});
