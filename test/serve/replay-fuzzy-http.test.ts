import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { captureTimestamp, replayPath } from '../../src/serve/replay-url.js';
import { openArchive, QUERY_VARIANTS_LIMIT } from '../../src/storage/reader/index.js';
import { readArchive, tempDir } from '../support/archive.js';
import { addCrawl } from '../support/captures.js';
import { APPLES, LATER_AT, LIST_BUSTED, LIST_LATER, LIST_PLAIN, makeBannerArchive } from '../support/banner-archive.js';
import { httpGet } from '../support/http-get.js';
import { siteReplayUrl } from '../support/replay-hosts.js';

// Replay's fuzzy match of query strings, over HTTP: a URL without a capture of its own replays the
// nearest capture of the URL whose query differs only by cache-busters, session or tracking
// parameters; another significant parameter is no match; the URL's own capture always wins.

const tmp = tempDir();
const db = tmp.path('fuzzy.sqlite');
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
const firstCrawl = () =>
  captureTimestamp(
    readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM captures WHERE url = ? ORDER BY fetched_at LIMIT 1', at('/list'))[0]!
      .fetched_at,
  );
const replayed = async (path: string, ts: string) => {
  const res = await httpGet(serving.replayOrigin, replayPath(at(path), ts));
  return { status: res.status, body: res.body.toString() };
};
const facts = async (path: string, ts: string) => {
  const res = await httpGet(serving.uiUrl, `/api/capture?url=${encodeURIComponent(at(path))}&ts=${ts}`);
  return { status: res.status, type: res.headers['content-type'], json: JSON.parse(res.body.toString()) as Record<string, unknown> };
};

describe('a URL the archive lacks replays a capture of the URL that differs only by ignored parameters', () => {
  it('cache-busters, tracking and session parameters are ignored, in any order; other parameters are not', async () => {
    for (const path of [
      '/search?q=apples&_=1732665600123',
      '/search?cb=42&q=apples',
      '/search?q=apples&cachebuster=17',
      '/search?q=apples&timestamp=1732665600&t=5',
      '/search?utm_source=mail&utm_medium=email&q=apples',
      '/search?q=apples&fbclid=IwAR0abc&gclid=Cj0x',
      '/search?q=apples&sid=x1&sessionid=y2&jsessionid=Z3&PHPSESSID=w4',
      '/search?q=apples&callback=jQuery1830_1732665600123',
    ]) {
      const res = await replayed(path, firstCrawl());
      expect(res.status, path).toBe(200);
      expect(res.body, path).toContain(APPLES);
    }
    // No match when a significant parameter differs, or a cache-buster's name has a value that is no number.
    for (const path of ['/search?q=pears&_=1', '/search?q=apples&page=2', '/search?q=apples&t=abc', '/search', '/search?_=1']) {
      expect((await replayed(path, firstCrawl())).status, path).toBe(404);
    }
  });

  it('the exact URL wins over a fuzzy match, and a busted URL falls back to the nearest capture of its variants', async () => {
    const later = captureTimestamp(LATER_AT);
    // `/list?_=123` has a capture of its own: shown, at any time, although `/list` has one nearer 2030.
    expect((await replayed('/list?_=123', later)).body).toContain(LIST_BUSTED);
    expect((await replayed('/list', firstCrawl())).body).toContain(LIST_PLAIN);
    // `/list?_=999` has none: the capture of `/list` or `/list?_=123` nearest the time asked for.
    const busted = await replayed('/list?_=999', later);
    expect(busted.status).toBe(200);
    expect(busted.body).toContain(LIST_LATER);
  });

  it('/api/capture says which capture is shown and that it is a fuzzy match; the exact one is not', async () => {
    const fuzzy = await facts('/search?q=apples&utm_campaign=x&_=99', firstCrawl());
    expect(fuzzy.status).toBe(200);
    expect(fuzzy.type).toBe('application/json');
    expect(fuzzy.json).toMatchObject({
      requested: at('/search?q=apples&utm_campaign=x&_=99'),
      url: at('/search?q=apples'),
      fuzzy: true,
      count: 1,
      index: 0,
      prev: null,
      next: null,
    });
    const exact = await facts('/list?_=123', captureTimestamp(LATER_AT));
    expect(exact.json).toMatchObject({ url: at('/list?_=123'), fuzzy: false });
    expect((await facts('/search?q=pears', firstCrawl())).status).toBe(404);
  });

  it("the UI's replay page says so in its bar, and frames the URL asked for", async () => {
    const asked = at('/search?q=apples&fbclid=abc');
    const page = (await httpGet(serving.uiUrl, `/replay?url=${encodeURIComponent(asked)}&ts=${firstCrawl()}`)).body.toString();
    const bar = page.slice(page.indexOf('<header id="replay-bar"'), page.indexOf('</header>'));
    expect(bar).toContain(
      `<span id="replay-fuzzy" title="no capture of ${asked.replace(/&/g, '&amp;')}: fuzzy match, showing a capture of ${at('/search?q=apples')}">`,
    );
    expect(bar).toContain(
      `">fuzzy match: showing a capture of <a id="replay-fuzzy-url" href="/capture?url=${encodeURIComponent(at('/search?q=apples'))}&amp;ts=`,
    );
    expect(bar).toContain(`>${at('/search?q=apples').replace(/&/g, '&amp;')}</a></span>`);
    // The archived site's own replay host, at the path and query asked for.
    expect(page).toContain(`src="${siteReplayUrl(serving.replayOrigin, asked, firstCrawl()).replace(/&/g, '&amp;')}"`);
    const exact = (await httpGet(serving.uiUrl, `/replay?url=${encodeURIComponent(at('/list?_=123'))}&ts=${firstCrawl()}`)).body.toString();
    expect(exact).toContain('<span id="replay-fuzzy" hidden>');
  });

  it('reads a bounded number of variants: one range on the URL index, at most QUERY_VARIANTS_LIMIT URLs, however many the archive has', async () => {
    addCrawl(
      db,
      Array.from({ length: QUERY_VARIANTS_LIMIT + 50 }, (_, i) => ({ url: at(`/many?page=${i}`), fetchedAt: LATER_AT, body: `page ${i}` })),
    );
    const reader = openArchive(db);
    try {
      const variants = reader.queryVariants(at('/many'));
      expect(variants).toHaveLength(QUERY_VARIANTS_LIMIT);
      expect(variants.every((variant) => variant.startsWith(at('/many?page=')))).toBe(true);
      expect(reader.queryVariants(at('/list'))).toEqual([at('/list'), at('/list?_=123')]);
    } finally {
      reader.close();
    }
    const busted = await replayed('/many?page=1&_=5', captureTimestamp(LATER_AT));
    expect(busted.body).toMatch(/page 1(?!\d)/);
  });
});
