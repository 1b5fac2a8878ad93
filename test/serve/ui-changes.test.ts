import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { ChangingSite, type Served } from '../support/changing-site.js';
import { hrefOf, htmlText, tableRows } from '../support/html-table.js';
import { get } from '../support/serve.js';
import { html, linksPage, routes, startServer, type TestServer } from '../support/test-server.js';
import { startUiServer, type UiServer } from '../support/ui-server.js';

// serve's /changes over two real crawls of a site that changed in between: the count of each
// kind, the URLs that changed a page at a time, and how one page's text changed.

/** The comparison runs in a process of its own: a limit that leaves room for it to start on a loaded machine. */
const ROOMY_MS = 30_000;
const SAME = ['/s1', '/s2', '/s3'];
/** More edited pages than one page of the list shows (100). */
const EDITED = Array.from({ length: 110 }, (_, i) => `/e/${i}`);

function answer(path: string, version: number): Served | undefined {
  if (path === '/') return { body: linksPage([...SAME, ...EDITED, '/about', '/drop', '/moved', ...(version === 2 ? ['/fresh'] : [])]) };
  if (SAME.includes(path)) return { body: linksPage([]), etag: `"${path}"` };
  if (EDITED.includes(path)) return { body: `<p>${path} version ${version}</p>` };
  if (path === '/about') {
    const price = version === 1 ? 'Apples cost 1 < 2 & more.' : 'Pears cost 3 > 2 & less.';
    return {
      body: `<html><head><title>About</title></head><body><h1>About</h1><p>We sell fruit.</p><p>${price}</p><p>Open daily.</p></body></html>`,
    };
  }
  if (path === '/drop') return version === 1 ? { body: '<p>here</p>' } : undefined;
  if (path === '/moved') return version === 1 ? { body: '<p>here</p>' } : { status: 301, body: '', location: '/fresh' };
  if (path === '/fresh') return { body: '<p>fresh</p>' };
  return undefined;
}

const site = new ChangingSite(answer);
let server: TestServer;
let ui: UiServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
const at = (path: string) => `${server.url.replace(/\/$/, '')}${path}`;
const changesPath = (params: Record<string, string>) => `/changes?${new URLSearchParams(params).toString()}`;

beforeAll(async () => {
  server = await startServer(site.handle);
  const crawled = await execCli(['crawl', server.url, '--db', db, '-q']);
  expect(crawled.code, crawled.stderr).toBe(0);
  site.version = 2;
  const recrawled = await execCli(['recrawl', db, '-q']);
  expect(recrawled.code, recrawled.stderr).toBe(0);
  ui = await startUiServer(db, { sqlTimeoutMs: ROOMY_MS });
});

afterAll(async () => {
  await ui?.close();
  await server?.close();
  tmp.cleanup();
});

describe('the changes page', () => {
  it('counts each kind of change between the last two crawls', async () => {
    const page = await get(ui.url, '/changes');
    expect(page.status).toBe(200);
    const counts = Object.fromEntries(tableRows(page.body, 'change-counts').map(([kind, count]) => [kind, Number(count)]));
    // The index links /fresh now: it changed too. robots.txt answered 404 both times: unchanged.
    expect(counts).toEqual({ new: 1, changed: EDITED.length + 2, unchanged: SAME.length + 1, redirected: 1, gone: 1 });
    expect(page.body).toMatch(/<select name="from"><option selected>1<\/option><option>2<\/option><\/select>/);
    expect(page.body).toMatch(/<select name="to"><option>1<\/option><option selected>2<\/option><\/select>/);
  });

  it('lists every URL that changed once, a page at a time, and not the unchanged ones', async () => {
    const listed: string[][] = [];
    let path: string | undefined = '/changes';
    let requests = 0;
    while (path) {
      const page = await get(ui.url, path);
      expect(page.status, path).toBe(200);
      const rows = tableRows(page.body, 'changes');
      expect(rows.length).toBeLessThanOrEqual(100);
      listed.push(...rows);
      path = hrefOf(page.body, 'next');
      requests += 1;
    }
    expect(requests).toBe(2);
    const expected = [
      ...['/', '/about', ...EDITED].map((path) => [at(path), 'changed']),
      [at('/drop'), 'gone'],
      [at('/fresh'), 'new'],
      [at('/moved'), 'redirected'],
    ].sort(([a], [b]) => (a! < b! ? -1 : 1));
    expect(listed.map(([url, change]) => [url, change])).toEqual(expected);
    expect(listed.find(([url]) => url === at('/drop'))![2]).toBe('200 → 404');
  });

  it('lists one kind when asked, the unchanged too', async () => {
    const page = await get(ui.url, changesPath({ from: '1', to: '2', change: 'unchanged' }));
    expect(page.status).toBe(200);
    expect(tableRows(page.body, 'changes').map(([url, change]) => [url, change])).toEqual(
      readArchive<{ url: string }>(db, "select url from changes where change = 'unchanged' order by url").map((row) => [
        row.url,
        'unchanged',
      ]),
    );
  });

  it("shows how one page's text changed, as crawlite diff --url prints it, escaped line by line", async () => {
    const page = await get(ui.url, changesPath({ url: at('/about') }));
    expect(page.status).toBe(200);
    const lines = [...page.body.matchAll(/<div class="(add|del|hunk|file|same)">([^<]*)<\/div>/g)].map(([, kind, text]) => [
      kind,
      htmlText(text!),
    ]);
    expect(lines.filter(([kind]) => kind === 'del' || kind === 'add')).toEqual([
      ['del', '-Apples cost 1 < 2 & more.'],
      ['add', '+Pears cost 3 > 2 & less.'],
    ]);
    expect(lines).toContainEqual(['same', ' Open daily.']);
    expect(page.body).toContain('<div class="del">-Apples cost 1 &lt; 2 &amp; more.</div>');
    const cli = await execCli(['diff', db, '--url', at('/about')]);
    expect(lines.map(([, text]) => text).join('\n')).toBe(cli.stdout.trimEnd());
    // The list links each change to its diff.
    const list = await get(ui.url, '/changes');
    expect(list.body).toContain(`href="${changesPath({ url: at('/about'), from: '1', to: '2' }).replaceAll('&', '&amp;')}">text diff</a>`);
  });

  it('says so when the text is the same, or a page was not captured in a crawl', async () => {
    const same = await get(ui.url, changesPath({ url: at('/s1') }));
    expect(same.status).toBe(200);
    expect(same.body).toContain('<p id="diff-same">The text is the same in crawl 1 and crawl 2.</p>');
    const fresh = await get(ui.url, changesPath({ url: at('/fresh') }));
    expect(fresh.status).toBe(404);
    expect(fresh.body).toContain(`${at('/fresh')} was not captured in crawl 1.`);
    const nowhere = await get(ui.url, changesPath({ url: 'https://elsewhere.example/<x>' }));
    expect(nowhere.status).toBe(404);
    expect(nowhere.body).toContain('https://elsewhere.example/&lt;x&gt; is not in the archive.');
  });

  it('refuses crawl numbers the archive does not hold, and kinds it does not know', async () => {
    const missing = await get(ui.url, changesPath({ from: '7' }));
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('crawl 7 is not in this archive: it holds crawls 1, 2');
    for (const params of [{ from: 'x' }, { to: '-1' }, { change: '<b>' }] as Array<Record<string, string>>) {
      const page = await get(ui.url, changesPath(params));
      expect(page.status, JSON.stringify(params)).toBe(400);
      expect(page.body).not.toContain('<b>');
    }
  });

  it('is linked from the overview, and from a changed capture on the capture page', async () => {
    expect((await get(ui.url, '/')).body).toContain('<a id="changes-link" href="/changes">');
    const capture = await get(ui.url, `/capture?url=${encodeURIComponent(at('/about'))}`);
    expect(capture.body).toContain(
      `<a class="what-changed" href="${changesPath({ url: at('/about'), from: '1', to: '2' }).replaceAll('&', '&amp;')}">what changed</a>`,
    );
    const unchanged = await get(ui.url, `/capture?url=${encodeURIComponent(at('/s1'))}`);
    expect(unchanged.body).not.toContain('what-changed');
  });

  it('says how to get a second crawl when the archive holds one', async () => {
    const single = await startServer(routes({ '/': html('<p>one</p>') }));
    const path = tmp.path('one.sqlite');
    let one: UiServer | undefined;
    try {
      expect((await execCli(['crawl', single.url, '--db', path, '-q'])).code).toBe(0);
      one = await startUiServer(path, { sqlTimeoutMs: ROOMY_MS });
      const page = await get(one.url, '/changes');
      expect(page.status).toBe(200);
      expect(page.body).toContain(
        '<p id="one-crawl">This archive holds one crawl: run <code>crawlite recrawl</code> on it, then see here what changed.</p>',
      );
    } finally {
      await one?.close();
      await single.close();
    }
  });
});
