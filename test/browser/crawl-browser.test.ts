import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser, recordRequests } from '../support/browser.js';
import { startServe } from '../support/serve.js';
import { captureTimestamp, replayPath } from '../../src/serve/replay-url.js';
import { startScriptSite, type ScriptSite } from '../support/script-site.js';
import { serveOrigins } from '../support/replay-hosts.js';

noticeIfNoBrowser('browser/crawl-browser');

// A site built by scripts: a plain crawl sees only its shell, crawl --browser sees what a reader sees.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const urlsOf = (db: string, where = '1') =>
  readArchive<{ url: string }>(db, `SELECT url FROM url WHERE ${where} ORDER BY url`).map((row) => new URL(row.url).pathname);

describe.skipIf(!HAS_CHROMIUM)('crawl --browser', () => {
  let site: ScriptSite;
  const plain = tmp.path('plain.sqlite');
  const rendered = tmp.path('rendered.sqlite');
  let plainHits: Map<string, number>;
  beforeAll(async () => {
    site = await startScriptSite(3);
    const first = await runCli(['crawl', site.url, '--db', plain, '-q']);
    expect(first.code, first.stderr).toBe(0);
    plainHits = new Map(site.hits);
    site.hits.clear();
    const second = await runCli(['crawl', site.url, '--db', rendered, '--browser', '-q']);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
  }, 120_000);
  afterAll(() => site?.close());

  it('without it, only the shell: no item page is found', () => {
    expect(urlsOf(plain, "state = 'done'")).toEqual(['/', '/robots.txt', '/shell.js', '/site.css']);
    expect(plainHits.get('/api/items.json')).toBeUndefined();
  });

  it('with it, every route the scripts build, every JSON they fetch and the lazy image are archived', () => {
    const done = urlsOf(rendered, "state = 'done'");
    for (const path of [
      '/',
      '/item/1',
      '/item/2',
      '/item/3',
      '/api/items.json',
      '/api/item/1.json',
      '/api/item/2.json',
      '/api/item/3.json',
      '/lazy.png',
      '/shell.js',
      '/item.js',
      '/site.css',
    ]) {
      expect(done, path).toContain(path);
    }
    // The JSON is stored exactly as the browser received it.
    const [list] = readArchive<{ body: Buffer; kind: string }>(
      rendered,
      'SELECT body, kind FROM pages WHERE url = ?',
      `${site.url}api/items.json`,
    );
    expect(JSON.parse(list!.body.toString())).toEqual([
      { id: 1, name: 'Item 1' },
      { id: 2, name: 'Item 2' },
      { id: 3, name: 'Item 3' },
    ]);
    expect(list!.kind).toBe('requisite');
  });

  it('the site saw each page once: the browser is answered with the document the crawl fetched; a shared script is captured once', () => {
    expect(site.hitCount('/')).toBe(1);
    for (let n = 1; n <= 3; n++) expect(site.hitCount(`/item/${n}`)).toBe(1);
    // A resource the browser already captured is not captured again: the three item pages load item.js,
    // and only the loads that ran at once (two tabs) each captured it.
    const [{ n }] = readArchive<{ n: number }>(rendered, 'SELECT count(*) AS n FROM captures WHERE url = ?', `${site.url}item.js`) as [
      { n: number },
    ];
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(3);
  });

  it('searches the rendered text', async () => {
    const shell = await runCli(['search', rendered, site.shellWord]);
    expect(shell.stdout).toContain(site.url);
    const item = await runCli(['search', rendered, site.itemWord(2)]);
    expect(item.stdout).toContain(`${site.url}item/2`);
  });

  it("keeps a script's POST as a capture with its body, never as the URL's page", () => {
    const posts = readArchive<{ request_method: string; request_body: Buffer }>(
      rendered,
      'SELECT request_method, request_body FROM captures WHERE url = ?',
      `${site.url}api/view`,
    );
    expect(posts.map((post) => [post.request_method, JSON.parse(post.request_body.toString())])).toEqual(
      expect.arrayContaining([
        ['POST', { id: '1' }],
        ['POST', { id: '2' }],
        ['POST', { id: '3' }],
      ]),
    );
    expect(readArchive(rendered, 'SELECT count(*) AS n FROM pages WHERE url = ?', `${site.url}api/view`)).toEqual([{ n: 0 }]);
    expect(readArchive(rendered, 'SELECT state, error_code FROM url WHERE url = ?', `${site.url}api/view`)).toEqual([
      { state: 'skipped', error_code: 'not_get' },
    ]);
  });

  it('keeps a screenshot of each rendered page, and none of anything else', () => {
    const shots = readArchive<{ url: string; type: string; size: number }>(
      rendered,
      'SELECT url, type, size FROM screenshots ORDER BY url',
    );
    expect(shots.map((shot) => new URL(shot.url).pathname)).toEqual(['/', '/item/1', '/item/2', '/item/3']);
    for (const shot of shots) {
      expect(['image/webp', 'image/png']).toContain(shot.type);
      expect(shot.size).toBeGreaterThan(100);
    }
  });

  it('does not follow a link that exists only in a click handler', () => {
    expect(site.hitCount('/clicked-only')).toBe(0);
    expect(urlsOf(rendered)).not.toContain('/clicked-only');
  });

  it("a re-crawl renders again; what changed is told by GETs, never by a script's POST", async () => {
    const again = await runCli(['recrawl', rendered, '-q']);
    expect(again.code, again.stderr).toBe(0);
    // Rendered again: the POSTs of the second crawl are kept as captures too.
    expect(readArchive(rendered, 'SELECT count(DISTINCT crawl) AS n FROM captures WHERE url = ?', `${site.url}api/view`)).toEqual([
      { n: 2 },
    ]);
    expect(readArchive(rendered, 'SELECT change FROM changes WHERE url = ?', `${site.url}api/view`)).toEqual([]);
    expect(readArchive(rendered, 'SELECT change FROM changes WHERE url = ?', `${site.url}item/1`)).toEqual([{ change: 'unchanged' }]);
    const diff = await runCli(['diff', rendered, '--from', '1', '--to', '2', '--all', '--format', 'json']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).not.toContain('api/view');
  }, 120_000);

  it('replays offline in Chromium with what the scripts built: their fetch() answered from the archive', async () => {
    const origin = new URL(site.url).origin;
    await site.close();
    const serve = await startServe(rendered);
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      const requests = recordRequests(context);
      const page = await context.newPage();
      const [root] = readArchive<{ fetched_at: string }>(rendered, 'SELECT fetched_at FROM pages WHERE url = ?', site.url);
      await page.goto(serve.replay + replayPath(site.url, captureTimestamp(root!.fetched_at)));
      // Locators run in Playwright's own world: the replay's CSP forbids the page's eval that waitForFunction needs.
      // The replay opens in the UI's frame: the page is inside it.
      const replayed = page.frameLocator('#replay');
      await replayed.locator('#app a').nth(2).waitFor({ timeout: 15_000 });
      expect(await replayed.locator('#app a').allTextContents()).toEqual(['Item 1', 'Item 2', 'Item 3']);
      expect(await replayed.locator('h1').textContent()).toBe('Zanzibar catalogue');
      await context.close();
      expect(requests.outside(serveOrigins(serve.ui, serve.replay))).toEqual([]);
      expect(requests.urls.some((url) => url.startsWith(origin))).toBe(false);
    } finally {
      await browser.close();
      await serve.stop();
    }
  }, 60_000);
});
