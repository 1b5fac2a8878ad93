import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { captureTimestamp } from '../../src/serve/replay-url.js';
import { SHIM_PATH } from '../../src/serve/replay/replay-shim.js';
import { readArchive, tempDir } from '../support/archive.js';
import { LATER_AT, LATEST_AT, makeBannerArchive } from '../support/banner-archive.js';
import { httpGet } from '../support/http-get.js';

// The replay bar as the UI origin draws it without script, the facts its script asks for, and the
// message the replay shim sends it: over HTTP, no browser needed.

const tmp = tempDir();
const db = tmp.path('banner.sqlite');
let origin: string;
let serving: ServingArchive;

beforeAll(async () => {
  origin = await makeBannerArchive(db);
  serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
}, 60_000);

afterAll(async () => {
  await serving?.close();
  tmp.cleanup();
});

const at = (path: string) => `${origin}${path}`;
const firstAt = (path: string) =>
  readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM captures WHERE url = ? ORDER BY fetched_at LIMIT 1', at(path))[0]!
    .fetched_at;
const uiGet = async (path: string) => {
  const res = await httpGet(serving.uiUrl, path);
  return { status: res.status, type: res.headers['content-type'], body: res.body.toString() };
};
const barOf = (page: string) => page.slice(page.indexOf('<header id="replay-bar"'), page.indexOf('</header>') + '</header>'.length);
const q = (url: string, ts: string) => `?url=${encodeURIComponent(url)}&amp;ts=${ts}`;

describe('the replay bar, drawn by the UI origin', () => {
  it('names the URL, the capture time as <time datetime>, its place among the captures, the ones before and after, and links to the capture and the archive', async () => {
    const home = at('/');
    const later = captureTimestamp(LATER_AT);
    const page = await uiGet(`/replay?url=${encodeURIComponent(home)}&ts=${later}`);
    expect(page.status).toBe(200);
    const bar = barOf(page.body);
    expect(bar).toContain(`<a id="replay-url" href="/capture${q(home, later)}" title="${home}">${home}</a>`);
    expect(bar).toContain(`<time id="replay-time" datetime="${LATER_AT}" title="${LATER_AT}">2030-01-02 00:00:00 UTC</time>`);
    expect(bar).toContain('<span id="replay-position">capture 2 of 3</span>');
    expect(bar).toContain(`<a id="replay-prev" href="/replay${q(home, captureTimestamp(firstAt('/')))}">`);
    expect(bar).toContain(`<a id="replay-next" href="/replay${q(home, captureTimestamp(LATEST_AT))}">`);
    expect(bar).toContain(`<a id="replay-capture" href="/capture${q(home, later)}"`);
    expect(bar).toContain('<a class="brand" id="replay-archive" href="/"');
    expect(bar).toContain('<span id="replay-fuzzy" hidden>');
    // The bar's script is a file of the UI origin, after the local-time script it calls.
    expect(page.body).toMatch(/<script src="\/assets\/local-time.js"><\/script>\s*<script src="\/assets\/replay-bar.js"><\/script>/);
    const script = await uiGet('/assets/replay-bar.js');
    expect(script.status).toBe(200);
    expect(script.type).toBe('text/javascript; charset=utf-8');
    expect(script.body).toContain('event.source !== frame.contentWindow');
  });

  it('the first and the latest capture have no earlier and no later one; a URL not archived says so, escaped', async () => {
    const first = barOf((await uiGet(`/replay?url=${encodeURIComponent(at('/'))}&ts=20000101000000`)).body);
    expect(first).toContain('<a id="replay-prev" class="off">');
    expect(first).toContain('capture 1 of 3');
    const latest = barOf((await uiGet(`/replay?url=${encodeURIComponent(at('/'))}&ts=99991231235959`)).body);
    expect(latest).toContain('<a id="replay-next" class="off">');
    expect(latest).toContain('capture 3 of 3');
    const missing = barOf((await uiGet(`/replay?url=${encodeURIComponent(at('/nowhere'))}`)).body);
    expect(missing).toContain('<span id="replay-missing" class="error">not archived</span>');
    // The URL asked for is escaped: a typed or linked URL never becomes markup in the bar.
    const hostile = barOf((await uiGet(`/replay?url=${encodeURIComponent('http://example.com/"><img src=x onerror=alert(1)>')}`)).body);
    expect(hostile).not.toContain('<img');
    expect(hostile).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('/api/capture', () => {
  it("answers a capture's facts as JSON, and only for captures the archive has", async () => {
    const res = await uiGet(`/api/capture?url=${encodeURIComponent(at('/a'))}&ts=${captureTimestamp(LATEST_AT)}`);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({
      requested: at('/a'),
      url: at('/a'),
      fuzzy: false,
      timestamp: captureTimestamp(LATEST_AT),
      fetchedAt: LATEST_AT,
      status: 200,
      index: 1,
      count: 2,
      prev: captureTimestamp(firstAt('/a')),
      next: null,
    });
    expect((await uiGet(`/api/capture?url=${encodeURIComponent('https://evil.invalid/<img src=x>')}&ts=20300101000000`)).status).toBe(404);
    expect((await uiGet(`/api/capture?url=javascript%3Aalert(1)&ts=20300101000000`)).status).toBe(400);
    expect((await uiGet(`/api/capture?url=${encodeURIComponent(at('/a'))}&ts=%3Cb%3E`)).status).toBe(400);
  });
});

describe('the replay shim', () => {
  it('posts the page it shows to the UI origin only, and answers only the UI origin', async () => {
    const shim = (await httpGet(serving.replayOrigin, SHIM_PATH)).body.toString();
    expect(shim).toContain("var message = { type: 'crawlite:replay', url: pageUrl, ts: timestamp };");
    // Every postMessage of the shim names the UI origin as its target.
    expect(shim.match(/postMessage\([^)]*\)/g)).toEqual(['postMessage(message, uiOrigin)']);
    expect(shim).toContain("event.source === parentWindow && event.origin === uiOrigin && event.data === 'crawlite:where'");
  });
});
