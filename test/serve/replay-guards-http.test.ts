import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { captureTimestamp, replayPath } from '../../src/serve/replay-url.js';
import { readArchive, tempDir } from '../support/archive.js';
import { httpGet } from '../support/http-get.js';
import { crawlHostileReplaySite, HOSTILE_PAGES, SECRET } from '../support/hostile-replay-site.js';
import { replayPageOrigin, siteReplayUrl } from '../support/replay-hosts.js';

// What the replay origin of `crawlite serve` answers, over HTTP, to what a hostile page or a
// rebinding site would ask of it: the guards the browser tests (replay-attacks) rely on.

const tmp = tempDir();
const db = tmp.path('hostile.sqlite');
let siteUrl: string;
let serving: ServingArchive;

beforeAll(async () => {
  siteUrl = await crawlHostileReplaySite(db);
  serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
}, 60_000);

afterAll(async () => {
  await serving?.close();
  tmp.cleanup();
});

const url = (path: string) => new URL(path, siteUrl).href;
const timestamp = (path: string) =>
  captureTimestamp(readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM pages WHERE url = ?', url(path))[0]!.fetched_at);
const replayed = (path: string, modifier: '' | 'id_' = '') => replayPath(url(path), timestamp(path), modifier);
const replay = (path: string, headers: Record<string, string> = {}) => httpGet(serving.replayOrigin, path, { headers });
const ui = () => serving.uiUrl.replace(/\/$/, '');

describe('the replay origin checks the Host header, as the UI does', () => {
  it('answers 421 to a request naming another host, for replayed pages and bodies as captured alike', async () => {
    const port = new URL(serving.replayOrigin).port;
    for (const path of [replayed(HOSTILE_PAGES.private), replayed(HOSTILE_PAGES.private, 'id_'), '/_crawlite/shim.js']) {
      for (const host of ['evil.example', `evil.example:${port}`]) {
        const res = await replay(path, { host });
        expect(res.status, `${host} ${path}`).toBe(421);
        expect(res.body.toString(), path).not.toContain(SECRET);
      }
      expect((await replay(path, { host: `localhost:${port}` })).status, path).toBe(200);
    }
    expect((await replay(replayed(HOSTILE_PAGES.private))).body.toString()).toContain(SECRET);
  });
});

describe('captured headers that grant powers', () => {
  it('reach the browser renamed x-archive-orig-*: Service-Worker-Allowed and Access-Control-Allow-Origin grant nothing', async () => {
    for (const modifier of ['', 'id_'] as const) {
      const res = await replay(replayed(HOSTILE_PAGES.worker, modifier));
      expect(res.status).toBe(200);
      expect(res.headers['service-worker-allowed'], modifier).toBeUndefined();
      expect(res.headers['access-control-allow-origin'], modifier).toBeUndefined();
      expect(res.headers['x-archive-orig-service-worker-allowed'], modifier).toBe('/');
      expect(res.headers['x-archive-orig-access-control-allow-origin'], modifier).toBe('*');
    }
  });
});

describe('service workers', () => {
  it("are refused their script: a request with the browser's Service-Worker header is answered 403, wherever it points", async () => {
    for (const path of [replayed(HOSTILE_PAGES.worker), replayed(HOSTILE_PAGES.worker, 'id_'), '/sw.js']) {
      const res = await replay(path, { 'service-worker': 'script', referer: serving.replayOrigin + replayed(HOSTILE_PAGES.serviceWorker) });
      expect(res.status, path).toBe(403);
      expect(res.body.toString(), path).not.toContain('addEventListener');
    }
  });
});

describe('a top-level navigation to a replay path', () => {
  it('is redirected to the UI page that frames it; the frame itself, and clients without Fetch Metadata, get the capture', async () => {
    const page = replayed(HOSTILE_PAGES.private);
    const top = await replay(page, { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' });
    expect(top.status).toBe(302);
    expect(top.headers.location).toBe(
      `${replayPageOrigin(ui())}/replay?url=${encodeURIComponent(url(HOSTILE_PAGES.private))}&ts=${timestamp(HOSTILE_PAGES.private)}`,
    );
    expect(top.body.toString()).not.toContain(SECRET);
    const raw = await replay(replayed(HOSTILE_PAGES.refresh, 'id_'), { 'sec-fetch-dest': 'document' });
    expect(raw.status).toBe(302);
    expect(raw.headers.location).toBe(
      `${replayPageOrigin(ui())}/replay?url=${encodeURIComponent(url(HOSTILE_PAGES.refresh))}&ts=${timestamp(HOSTILE_PAGES.refresh)}&raw=1`,
    );
    for (const dest of ['iframe', 'frame', 'empty', undefined]) {
      const res = await replay(page, dest ? { 'sec-fetch-dest': dest } : {});
      expect(res.status, dest).toBe(200);
      expect(res.body.toString(), dest).toContain(SECRET);
    }
  });
});

describe('the sandbox on every replayed response', () => {
  it('lets a rewritten page run its scripts on the replay origin but open no window; a body as captured, or a document no shim runs in, runs nothing', async () => {
    const page = await replay(replayed(HOSTILE_PAGES.attack));
    expect(String(page.headers['content-security-policy'])).toMatch(/; sandbox allow-scripts allow-forms allow-same-origin$/);
    const raw = await replay(replayed(HOSTILE_PAGES.refresh, 'id_'));
    expect(String(raw.headers['content-security-policy'])).toMatch(/; sandbox$/);
    expect(raw.headers['content-type']).toBe('text/html; charset=utf-8');
    const svg = await replay(replayed(HOSTILE_PAGES.svg));
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(String(svg.headers['content-security-policy'])).toMatch(/; sandbox$/);
  });
});

describe("the UI's frame page", () => {
  it('frames the capture from the replay origin in a sandbox without popups or top navigation; the raw body runs nothing', async () => {
    const page = await httpGet(ui(), `/replay?url=${encodeURIComponent(url(HOSTILE_PAGES.attack))}&ts=${timestamp(HOSTILE_PAGES.attack)}`);
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain(
      `<iframe id="replay" class="replay-view" src="${siteReplayUrl(serving.replayOrigin, url(HOSTILE_PAGES.attack), timestamp(HOSTILE_PAGES.attack))}" sandbox="allow-scripts allow-forms allow-same-origin" referrerpolicy="no-referrer"`,
    );
    // The base replay origin (bodies as captured) and the archived sites' own hosts on its port, nothing else.
    expect(String(page.headers['content-security-policy'])).toContain(
      `frame-src ${serving.replayOrigin} http://*.crawlite.localhost:${new URL(serving.replayOrigin).port};`,
    );
    const raw = await httpGet(
      ui(),
      `/replay?url=${encodeURIComponent(url(HOSTILE_PAGES.refresh))}&ts=${timestamp(HOSTILE_PAGES.refresh)}&raw=1`,
    );
    expect(raw.body.toString()).toContain(
      `src="${serving.replayOrigin}${replayed(HOSTILE_PAGES.refresh, 'id_')}" sandbox="" referrerpolicy="no-referrer"`,
    );
  });

  it('refuses a URL that is not http(s), and a timestamp that is not one, with 400', async () => {
    for (const query of ['', '?url=javascript%3Aalert(1)', `?url=${encodeURIComponent(siteUrl)}&ts=yesterday`]) {
      expect((await httpGet(ui(), `/replay${query}`)).status, query).toBe(400);
    }
  });
});
