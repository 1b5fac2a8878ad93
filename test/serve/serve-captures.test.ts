import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { captureTimestamp } from '../../src/serve/replay-url.js';
import { readArchive, tempDir } from '../support/archive.js';
import { CRAWL_2_AT, CRAWL_3_AT, makeHistoryArchive, PAGE_B, TEXT_1, TEXT_2, type HistoryArchive } from '../support/history-site.js';
import { httpGet } from '../support/http-get.js';
import { siteReplayUrl } from '../support/replay-hosts.js';

// Serving an archive re-crawled twice: replay picks the capture nearest the
// timestamp asked for (and keeps that capture's timestamp in rewritten links
// and redirects), and the UI's capture page lists a URL's captures on a
// timeline, each a link to its own page, replay frame and download.

const tmp = tempDir();
const db = tmp.path('site.sqlite');
let site: HistoryArchive;
let serving: ServingArchive;
let crawl1: Record<string, string>;

const TS2 = captureTimestamp(CRAWL_2_AT);
const TS3 = captureTimestamp(CRAWL_3_AT);
const at = (path: string) => `${site.origin}${path}`;
const replay = async (path: string) => {
  const response = await httpGet(serving.replayOrigin, path);
  return { ...response, text: response.body.toString('utf8') };
};
const ui = async (path: string) => {
  const response = await httpGet(serving.uiUrl, path);
  return { ...response, text: response.body.toString('utf8') };
};
const capturePath = (path: string, ts?: string) => `/capture?url=${encodeURIComponent(at(path))}${ts ? `&ts=${ts}` : ''}`;
/** The timeline's entries: the change each shows, and whether it is the one selected. */
const timelineOf = (page: string) =>
  [...page.matchAll(/<li data-change="([^"]+)"( class="selected")?[^>]*><a href="([^"]+)">/g)].map((m) => ({
    change: m[1],
    selected: m[2] !== undefined,
    href: m[3]!.replace(/&amp;/g, '&'),
  }));

beforeAll(async () => {
  site = await makeHistoryArchive(db, () => []);
  // Crawl 1's own timestamps, per path.
  crawl1 = Object.fromEntries(
    readArchive<{ url: string; fetched_at: string }>(db, 'SELECT url, fetched_at FROM captures WHERE crawl = 1').map((row) => [
      new URL(row.url).pathname,
      captureTimestamp(row.fetched_at),
    ]),
  );
  serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await serving?.close();
  tmp.cleanup();
});

describe('replay of an archive with history', () => {
  it('replays the capture nearest the timestamp asked for', async () => {
    expect((await replay(`/${crawl1['/a']}/${at('/a')}`)).text).toContain('We sell apples.');
    expect((await replay(`/${TS2}/${at('/a')}`)).text).toContain('We sell pears. Open daily.</p>');
    // Nearer crawl 2 (00:00 on the 2nd) than crawl 3 (00:00 on the 3rd).
    expect((await replay(`/20300102060000/${at('/a')}`)).text).not.toContain('Sundays');
    expect((await replay(`/20300102180000/${at('/a')}`)).text).toContain('Closed on Sundays.');
    // Equally near both: the later, as pywb does.
    expect((await replay(`/20300102120000/${at('/a')}`)).text).toContain('Closed on Sundays.');
    expect((await replay(`/2040/${at('/a')}`)).text).toContain('Closed on Sundays.');
    expect((await replay(`/1990/${at('/a')}`)).text).toContain('We sell apples.');
  });

  it("rewrites a page's links with the timestamp of the capture replayed", async () => {
    const early = (await replay(`/${crawl1['/']}/${at('/')}`)).text;
    expect(early).toContain(`href="${serving.replayOrigin}/${crawl1['/']}/${at('/a')}"`);
    const later = (await replay(`/20300102000500/${at('/')}`)).text;
    expect(later).toContain(`href="${serving.replayOrigin}/${TS2}/${at('/a')}"`);
  });

  it('serves the body of the capture of that time with id_', async () => {
    expect((await replay(`/${crawl1['/t.txt']}id_/${at('/t.txt')}`)).text).toBe(TEXT_1);
    expect((await replay(`/${TS2}id_/${at('/t.txt')}`)).text).toBe(TEXT_2);
  });

  it('replays a 304 capture with the content it confirmed, and a capture gone 404 as a 404', async () => {
    const notModified = await replay(`/${TS2}/${at('/b')}`);
    expect(notModified.status).toBe(200);
    expect(notModified.text).toContain('Bees are busy.');
    expect((await replay(`/${TS2}id_/${at('/b')}`)).text).toBe(String(PAGE_B.body));
    expect((await replay(`/${TS2}/${at('/d')}`)).status).toBe(404);
    const before = await replay(`/${crawl1['/d']}/${at('/d')}`);
    expect(before.status).toBe(200);
    expect(before.text).toContain('Dogs bark.');
  });

  it("redirects a capture that was a redirect, keeping that capture's timestamp", async () => {
    const moved = await replay(`/${TS2}/${at('/r')}`);
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe(`${serving.replayOrigin}/${TS2}/${at('/a')}`);
    expect((await replay(`/${crawl1['/r']}/${at('/r')}`)).status).toBe(200);
  });
});

describe("the UI's capture page", () => {
  it('lists the captures on a timeline, oldest first, each a link to its page; the latest is shown by default', async () => {
    const page = await ui(capturePath('/a'));
    expect(page.status).toBe(200);
    const entries = timelineOf(page.text);
    expect(entries.map((entry) => [entry.change, entry.selected])).toEqual([
      ['first', false],
      ['changed', false],
      ['changed', true],
    ]);
    expect(entries.map((entry) => entry.href)).toEqual([crawl1['/a'], TS2, TS3].map((ts) => capturePath('/a', ts)));
    expect(page.text).toMatch(/crawl 1 · <time datetime="[^"]+" title="[^"]+">[^<]+ UTC<\/time> · 200 · first/);
    expect(page.text).toContain(`<iframe id="replay" src="${siteReplayUrl(serving.replayOrigin, at('/a'), TS3)}"`);
    expect(page.text).not.toContain('id="earlier-capture"');
  });

  it('marks unchanged captures and 304s', async () => {
    expect(timelineOf((await ui(capturePath('/b'))).text).map((entry) => entry.change)).toEqual(['first', '304 not modified', 'unchanged']);
    expect(timelineOf((await ui(capturePath('/'))).text).map((entry) => entry.change)).toEqual(['first', 'unchanged', '304 not modified']);
  });

  it('shows the capture a timeline link names: its status, headers, replay frame and download at its time', async () => {
    const page = await ui(capturePath('/d', TS2));
    expect(page.status).toBe(200);
    expect(timelineOf(page.text).map((entry) => entry.selected)).toEqual([false, true, false]);
    expect(page.text).toContain('<span id="capture-status">404</span>');
    expect(page.text).toContain('id="earlier-capture"');
    expect(page.text).toContain(`<iframe id="replay" src="${siteReplayUrl(serving.replayOrigin, at('/d'), TS2)}"`);
    expect(page.text).toMatch(/<pre id="response-headers">HTTP\/1\.1 404\s*\ncontent-type: text\/plain/);
    const download = page.text.match(/<a id="download" href="([^"]+)"/)![1]!.replace(/&amp;/g, '&');
    expect((await ui(download)).text).toBe('not found');
    const first = await ui(capturePath('/d', crawl1['/d']));
    expect(first.text).toContain('<span id="capture-status">200</span>');
  });

  it("shows a 304 capture with the 304's header block", async () => {
    const page = await ui(capturePath('/b', TS2));
    expect(page.text).toContain('id="not-modified"');
    expect(page.text).toMatch(/<pre id="response-headers">HTTP\/1\.1 304 Not Modified\nDate: [^\n]+\nETag: &quot;v1&quot;/);
  });

  it('refuses a timestamp that is not one, with 400', async () => {
    const page = await ui(`${capturePath('/a')}&ts=yesterday`);
    expect(page.status).toBe(400);
    expect(page.text).toContain('ts must be a capture&#39;s timestamp');
  });
});
