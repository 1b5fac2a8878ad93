import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { startServer, type TestServer } from '../support/test-server.js';

noticeIfNoBrowser('browser/render-notes');

// A render that runs into a bound (the network never quiet, a feed that grows as it is scrolled) is
// captured as it was then, and the bound is recorded with the page: the view render_notes, stats, --log.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const page = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
/** A request the server never answers: the page's network is never quiet. */
const BUSY = `<p>Busy page</p><script>fetch('/hang');</script>`;
/** Each scroll near the bottom adds another screen: the bottom is never reached. */
const FEED = `<div id="feed"><div style="height: 2000px">first</div></div><script>
window.addEventListener('scroll', () => {
  if (window.scrollY + window.innerHeight > document.documentElement.scrollHeight - 1500) {
    const more = document.createElement('div');
    more.style.height = '2000px';
    more.textContent = 'more';
    document.getElementById('feed').append(more);
  }
});
</script>`;

describe.skipIf(!HAS_CHROMIUM)('render notes', () => {
  let site: TestServer;
  const db = tmp.path('notes.sqlite');
  const log = tmp.path('fetches.jsonl');
  beforeAll(async () => {
    site = await startServer((_req, res, path) => {
      const send = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(page(body));
      if (path === '/') return send('<a href="/busy">busy</a> <a href="/feed">feed</a>');
      if (path === '/busy') return send(BUSY);
      if (path === '/feed') return send(FEED);
      // /hang: never answered (closeAllConnections ends it when the server closes).
      if (path === '/hang') return;
      res.writeHead(404).end();
    });
    const crawl = await runCli(['crawl', site.url, '--db', db, '--browser', '--log', log, '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
  }, 120_000);
  afterAll(() => site?.close());

  const notesOf = (path: string) =>
    readArchive<{ note: string }>(db, 'SELECT note FROM render_notes WHERE url = ? ORDER BY note', site.url + path.slice(1)).map(
      (row) => row.note,
    );

  it('records the bound each render ran into, with its capture, and none for a page rendered within them', () => {
    expect(notesOf('/busy')).toEqual(['network-idle']);
    expect(notesOf('/feed')).toEqual(['scroll']);
    expect(notesOf('/')).toEqual([]);
    // Keyed like the capture: the page's fetched_at.
    const [busy] = readArchive<{ same: number }>(
      db,
      'SELECT n.fetched_at = p.fetched_at AS same FROM render_notes n JOIN pages p ON p.url = n.url WHERE n.url = ?',
      `${site.url}busy`,
    );
    expect(busy).toEqual({ same: 1 });
  });

  it('stats counts them', async () => {
    const stats = await runCli(['stats', db]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/^Capped +network-idle 1, scroll 1 renders \(render_notes\)$/m);
  });

  it('the --log line of a capped render says which bound', () => {
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { url: string; render_notes: string[] });
    expect(lines.find((line) => line.url === `${site.url}busy`)?.render_notes).toEqual(['network-idle']);
    expect(lines.find((line) => line.url === `${site.url}feed`)?.render_notes).toEqual(['scroll']);
    expect(lines.find((line) => line.url === site.url)?.render_notes).toEqual([]);
  });
});
