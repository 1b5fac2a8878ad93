import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { get } from '../support/serve.js';
import { routes, serverPool, type TestServer } from '../support/test-server.js';
import { LISTS_HOSTILE_TITLE, LISTS_LINKED_HOST, LISTS_LINKED_URLS, LISTS_LONG_TITLE, listsSiteRoutes } from '../support/lists-site.js';

// The lists people read in the UI, over a real crawl of a local site: the URL list's titles,
// types and type filter, and the overview's hosts, crawled ones first and linked-only ones apart.

const tmp = tempDir();
const servers = serverPool();
let site: TestServer;
let archive: string;
let serving: ServingArchive;
let ui: string;

beforeAll(async () => {
  site = await servers.serve(routes(listsSiteRoutes()));
  archive = tmp.path('lists.sqlite');
  const crawl = await execCli(['crawl', site.url, '--db', archive, '-q']);
  expect(crawl.code, crawl.stderr).toBe(0);
  serving = await serveArchive({ path: archive, host: '127.0.0.1', port: 0 });
  ui = serving.uiUrl;
});

afterAll(async () => {
  await serving?.close();
  await servers.closeAll();
  tmp.cleanup();
});

const unescape = (value: string) =>
  value.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');

interface ListedRow {
  url: string;
  /** The title cell's HTML as sent, and its hover title (when the title is cut). */
  titleHtml: string;
  titleHover: string | undefined;
  type: string;
  /** The Content-Type as sent, on hover when it says more than the media type. */
  typeHover: string | undefined;
  fetched: string;
}

/** The rows of the URL table, cell by cell. */
function listedRows(body: string): ListedRow[] {
  const table = /<table id="urls">.*?<tbody>(.*?)<\/tbody>/s.exec(body)?.[1] ?? '';
  return [...table.matchAll(/<tr>(.*?)<\/tr>/gs)].map(([, row]) => {
    const url = /^<td class="url">(?:<a href="[^"]*">)?([^<]+)/.exec(row!)![1]!;
    const title = /<td class="title"(?: title="([^"]*)")?>(.*?)<\/td>/.exec(row!)!;
    const type = /<td class="type"(?: title="([^"]*)")?>(.*?)<\/td>/.exec(row!)!;
    return {
      url: unescape(url),
      titleHtml: title[2]!,
      titleHover: title[1] === undefined ? undefined : unescape(title[1]),
      type: unescape(type[2]!),
      typeHover: type[1] === undefined ? undefined : unescape(type[1]),
      fetched: /<td class="time">(.*?)<\/td>/.exec(row!)![1]!,
    };
  });
}

const nextHref = (body: string) => /<a id="next" rel="next" href="([^"]+)"/.exec(body)?.[1]?.replaceAll('&amp;', '&');

/** Every URL the list gives from `path` on, following its next links. */
async function walk(path: string): Promise<{ urls: string[]; pages: string[] }> {
  const urls: string[] = [];
  const pages: string[] = [];
  for (let next: string | undefined = path; next && pages.length < 50;) {
    const page = await get(ui, next);
    expect(page.status, next).toBe(200);
    pages.push(next);
    urls.push(...listedRows(page.body).map((row) => row.url));
    next = nextHref(page.body);
  }
  return { urls, pages };
}

const mediaTypeOf = (contentType: string | null) => (contentType ?? '').split(';')[0]!.trim().toLowerCase() || '(none)';

interface Stored {
  url: string;
  title: string | null;
  content_type: string | null;
  fetched_at: string;
}
const stored = () => readArchive<Stored>(archive, 'SELECT url, title, content_type, fetched_at FROM pages ORDER BY url');

describe('the URL list', () => {
  it("shows each archived URL's title, media type (the Content-Type on hover) and fetch time (a <time> in UTC)", async () => {
    const page = await get(ui, '/urls?limit=1000');
    expect(page.body).toContain('<th>title</th>');
    const rows = new Map(listedRows(page.body).map((row) => [row.url, row]));
    const pages = stored();
    expect(pages.length).toBeGreaterThan(5);
    for (const capture of pages) {
      const row = rows.get(capture.url)!;
      expect(row, capture.url).toBeDefined();
      expect(row.type, capture.url).toBe(mediaTypeOf(capture.content_type));
      expect(row.typeHover ?? row.type, capture.url).toBe(capture.content_type ?? '(none)');
      expect(row.fetched, capture.url).toMatch(
        new RegExp(
          `^<time datetime="${capture.fetched_at}" title="${capture.fetched_at}">\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC</time>$`,
        ),
      );
      if (capture.title && capture.title.length <= 80) expect(unescape(row.titleHtml), capture.url).toBe(capture.title);
    }
    expect(unescape(rows.get(`${site.url}a`)!.titleHtml)).toBe('Page A');
    expect(rows.get(`${site.url}a`)).toMatchObject({ type: 'text/html', typeHover: 'text/html; charset=utf-8' });
    expect(rows.get(`${site.url}robots.txt`)).toMatchObject({ type: '(none)', typeHover: undefined });
    // Seen but never fetched: no title, no type, no time.
    const linked = rows.get(LISTS_LINKED_URLS[0]!)!;
    expect(linked).toMatchObject({ titleHtml: '', type: '', typeHover: undefined, fetched: '' });
  });

  it('keeps a hostile title as text and cuts a long one to a line, the stored title on hover', async () => {
    const page = await get(ui, `/urls?text=${encodeURIComponent('/hostile')}`);
    const [hostile] = listedRows(page.body);
    expect(hostile!.titleHtml).toBe('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
    expect(unescape(hostile!.titleHtml)).toBe(LISTS_HOSTILE_TITLE);
    expect(page.body).not.toMatch(/<script>alert|<img src=x/);
    const [long] = listedRows((await get(ui, `/urls?text=${encodeURIComponent('/long')}`)).body);
    const shown = Array.from(unescape(long!.titleHtml));
    expect(shown.length).toBe(80);
    expect(shown.at(-1)).toBe('…');
    expect(LISTS_LONG_TITLE.startsWith(shown.slice(0, -1).join(''))).toBe(true);
    expect(long!.titleHover).toBe(LISTS_LONG_TITLE);
  });

  it("offers the archive's media types with their counts, and filters by one, page after page, with the other filters", async () => {
    const pages = stored();
    const counts = new Map<string, number>();
    for (const capture of pages) counts.set(mediaTypeOf(capture.content_type), (counts.get(mediaTypeOf(capture.content_type)) ?? 0) + 1);
    expect(counts.get('text/html')).toBeGreaterThan(5);
    expect(counts.get('image/png')).toBe(1);
    const form = (await get(ui, '/urls')).body;
    const select = /<select name="type">(.*?)<\/select>/s.exec(form)?.[1] ?? '';
    for (const [type, count] of counts) expect(select, type).toContain(`<option value="${type}">${type} (${count})</option>`);

    const html = pages.filter((capture) => mediaTypeOf(capture.content_type) === 'text/html').map((capture) => capture.url);
    const walked = await walk('/urls?type=text%2Fhtml&limit=3');
    // Every text/html URL once, in URL order, and nothing else.
    expect(walked.urls).toEqual(html);
    expect(walked.pages.length).toBe(Math.ceil(html.length / 3) + (html.length % 3 === 0 ? 1 : 0));
    expect(walked.pages.slice(1).every((path) => new URLSearchParams(path.split('?')[1]).get('type') === 'text/html')).toBe(true);
    // The overview's count of each type leads to the list of that type.
    const overview = (await get(ui, '/')).body;
    const typesTable = /<table id="content-types">(.*?)<\/table>/s.exec(overview)?.[1] ?? '';
    expect(typesTable).toContain(`<a href="/urls?type=text%2Fhtml">text/html</a>`);
    expect(typesTable).toContain(`<a href="/urls?type=image%2Fpng">image/png</a>`);
    const chosen = (await get(ui, '/urls?type=text%2Fhtml')).body;
    expect(chosen).toContain(`<option value="text/html" selected>text/html (${counts.get('text/html')})</option>`);

    expect((await walk('/urls?type=IMAGE%2FPNG')).urls).toEqual([`${site.url}logo.png`]);
    expect((await walk(`/urls?type=text%2Fhtml&status=4xx`)).urls).toEqual([`${site.url}missing`]);
    const origin = site.url.replace(/\/$/, '');
    expect((await walk(`/urls?type=text%2Fplain&host=${encodeURIComponent(origin)}&limit=1`)).urls).toEqual(
      pages.filter((capture) => mediaTypeOf(capture.content_type) === 'text/plain').map((capture) => capture.url),
    );
    // A type the archive does not have: nothing, and the select keeps it chosen.
    const none = await get(ui, '/urls?type=video%2Fmp4');
    expect(listedRows(none.body)).toEqual([]);
    expect(none.body).toContain('<option value="video/mp4" selected>video/mp4</option>');
    const tooLong = await get(ui, `/urls?type=${'x'.repeat(300)}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatch(/<p class="error" id="error">type must be a media type/);
  });
});

describe('the overview', () => {
  it('lists the hosts crawled by pages fetched, and the hosts only linked to apart, folded', async () => {
    const page = (await get(ui, '/')).body;
    const crawled = /<table id="hosts">.*?<tbody>(.*?)<\/tbody>/s.exec(page)?.[1] ?? '';
    const crawledRows = [
      ...crawled.matchAll(/<tr><td>(?:<a href="[^"]*">)?([^<]*)(?:<\/a>)?<\/td>((?:<td class="num">[^<]*<\/td>)+)<\/tr>/g),
    ].map((match) => ({
      origin: match[1],
      counts: [...match[2]!.matchAll(/<td class="num">([^<]*)<\/td>/g)].map((cell) => Number(cell[1]!.replaceAll(',', ''))),
    }));
    const origin = site.url.replace(/\/$/, '');
    const fetched = readArchive<{ n: number }>(archive, 'SELECT count(*) AS n FROM pages')[0]!.n;
    const seen = readArchive<{ n: number }>(archive, "SELECT count(*) AS n FROM urls WHERE url LIKE ? || '/%'", origin)[0]!.n;
    // The linked host has more URLs than the site has pages, and still comes after it, in its own table.
    expect(LISTS_LINKED_URLS.length).toBeGreaterThan(seen);
    expect(crawledRows).toEqual([{ origin, counts: [fetched, 0, seen] }]);
    expect(page).toContain('<h2>Hosts crawled (1)</h2>');
    const apart =
      /<details id="seen-hosts-section"><summary>Hosts only linked to, nothing fetched \(1\)<\/summary>\s*<table id="seen-hosts">.*?<tbody>(.*?)<\/tbody>/s.exec(
        page,
      )?.[1];
    expect(apart?.trim()).toBe(
      `<tr><td><a href="/urls?host=${encodeURIComponent(LISTS_LINKED_HOST)}">${LISTS_LINKED_HOST}</a></td><td class="num">${LISTS_LINKED_URLS.length}</td></tr>`,
    );
  });
});
