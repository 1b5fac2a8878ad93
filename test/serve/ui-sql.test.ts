import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSha256, readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { hrefOf, htmlText, tableRows } from '../support/html-table.js';
import { startLinkedSite } from '../support/linked-site.js';
import { get } from '../support/serve.js';
import type { TestServer } from '../support/test-server.js';
import { startUiServer, type UiServer } from '../support/ui-server.js';

// serve's SQL page over a real crawl: a query's rows, views and tables browsed a page at a
// time by key, every row as CSV or JSON, and the query box's guard and time limit.

const N = 45;
// Wide: a query's time includes starting its process, which takes a while on a loaded machine.
const SQL_TIMEOUT_MS = 10_000;
const DOWNLOAD_TIMEOUT_MS = 12_000;
const tmp = tempDir();
const archive = tmp.path('site.sqlite');
let site: TestServer;
let ui: UiServer;

const sqlPath = (sql: string, path = '/sql') => `${path}?${new URLSearchParams({ sql }).toString()}`;
const errorOf = (body: string) => htmlText(/<p class="error" id="sql-error">([\s\S]*?)<\/p>/.exec(body)?.[1] ?? '');
/** An endless statement: one SQLite step that never returns. */
const ENDLESS = 'with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n';
const counting = (n: number) =>
  `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${n}) select i, 'row ' || i as label from n`;

beforeAll(async () => {
  site = await startLinkedSite(N);
  const crawl = await execCli(['crawl', site.url, '--db', archive, '-q']);
  expect(crawl.code, crawl.stderr).toBe(0);
  ui = await startUiServer(archive, { sqlTimeoutMs: SQL_TIMEOUT_MS, downloadTimeoutMs: DOWNLOAD_TIMEOUT_MS });
});

afterAll(async () => {
  await ui?.close();
  await site?.close();
  tmp.cleanup();
});

describe('the SQL page', () => {
  it('lists the views and tables with their columns, and example queries; the nav bar links to it', async () => {
    const page = await get(ui.url, '/sql');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<a href="/sql">SQL</a>');
    for (const view of ['pages', 'links', 'urls', 'captures', 'changes']) {
      const item = new RegExp(`<li data-relation="${view}">([\\s\\S]*?)</li>`).exec(page.body)?.[1];
      expect(item, view).toBeDefined();
      expect(item).toContain(`href="/sql?view=${view}"`);
    }
    const links = new RegExp('<li data-relation="links">([\\s\\S]*?)</li>').exec(page.body)![1]!;
    for (const column of ['from_url', 'to_url', 'kind', 'nofollow']) expect(links).toContain(`data-insert="${column}"`);
    expect(page.body).toContain('<script src="/assets/sql-box.js"></script>');
    expect(page.body).toMatch(/href="\/sql\?sql=select\+to_url[^"]*">most linked URLs<\/a>/);
  });

  it("shows a query's rows as a table, and the query, escaped", async () => {
    const query = "select url, status, '<script>alert(1)</script>' as x from pages where url like '%/p/%' order by url";
    const page = await get(ui.url, sqlPath(query));
    expect(page.status).toBe(200);
    const expected = readArchive<{ url: string; status: number }>(
      archive,
      "select url, status from pages where url like '%/p/%' order by url",
    );
    expect(expected.length).toBeGreaterThanOrEqual(N - 1);
    expect(tableRows(page.body, 'results')).toEqual(expected.map((row) => [row.url, String(row.status), '<script>alert(1)</script>']));
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).toContain(
      `&#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39; as x from pages where url like &#39;%/p/%&#39; order by url</textarea>`,
    );
  });

  it('browses a view or a table a page at a time by key: every row once, in key order', async () => {
    const walk = async (view: string, limit: number) => {
      const rows: string[][] = [];
      let path: string | undefined = `/sql?view=${view}&limit=${limit}`;
      let requests = 0;
      while (path) {
        const page = await get(ui.url, path);
        expect(page.status, path).toBe(200);
        rows.push(...tableRows(page.body, 'results'));
        path = hrefOf(page.body, 'next');
        requests += 1;
      }
      return { rows, requests };
    };
    const urls = await walk('urls', 20);
    const expectedUrls = readArchive<{ url: string }>(archive, 'select url from urls order by url').map((row) => row.url);
    expect(urls.rows.map((row) => row[0])).toEqual(expectedUrls);
    expect(urls.requests).toBe(Math.ceil(expectedUrls.length / 20));

    // A key of two columns.
    const links = await walk('links', 60);
    const expectedLinks = readArchive<{ from_url: string; to_url: string }>(
      archive,
      'select from_url, to_url from links order by from_url, to_url',
    );
    expect(expectedLinks.length).toBeGreaterThan(100);
    expect(links.rows.map((row) => [row[0], row[1]])).toEqual(expectedLinks.map((row) => [row.from_url, row.to_url]));

    // A table, by its integer key; its BLOB is shown by size.
    const bodies = await walk('body', 20);
    const expectedBodies = readArchive<{ id: number; size: number }>(archive, 'select id, length(data) as size from body order by id');
    const dataColumn = (await get(ui.url, '/sql?view=body')).body.match(/<th>(\w+)<\/th>/g)!.indexOf('<th>data</th>');
    expect(bodies.rows.map((row) => row[0])).toEqual(expectedBodies.map((row) => String(row.id)));
    expect(bodies.rows.map((row) => row[dataColumn])).toEqual(expectedBodies.map((row) => `<${row.size} bytes>`));
  });

  it('refuses a key it did not give, a view the archive lacks and a page size out of range', async () => {
    for (const path of [
      '/sql?view=urls&after=%5B1%2C2%5D',
      '/sql?view=urls&after=nope',
      '/sql?view=urls&limit=0',
      '/sql?view=urls&limit=5000',
    ]) {
      expect((await get(ui.url, path)).status, path).toBe(400);
    }
    const missing = await get(ui.url, '/sql?view=%3Cimg%20src%3Dx%3E');
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('&lt;img src=x&gt;');
  });

  it('shows the first 200 rows of a long result and says it was cut; CSV and JSON downloads have every row', async () => {
    const query = counting(1000);
    const page = await get(ui.url, sqlPath(query));
    expect(page.status).toBe(200);
    expect(tableRows(page.body, 'results')).toHaveLength(200);
    expect(page.body).toContain('<strong id="cut">The first 200 rows</strong>');
    expect(hrefOf(page.body, 'csv')).toBe(sqlPath(query, '/sql.csv'));

    const csv = await get(ui.url, hrefOf(page.body, 'csv')!);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="query.csv"');
    expect(csv.body.split('\r\n')).toEqual(['i,label', ...Array.from({ length: 1000 }, (_, i) => `${i + 1},row ${i + 1}`), '']);

    const json = await get(ui.url, hrefOf(page.body, 'json')!);
    expect(json.status).toBe(200);
    expect(JSON.parse(json.body)).toEqual(Array.from({ length: 1000 }, (_, i) => ({ i: i + 1, label: `row ${i + 1}` })));

    // The archive's own rows, bodies as base64.
    const pages = JSON.parse((await get(ui.url, sqlPath('select url, body from pages order by url', '/sql.json'))).body) as Array<{
      url: string;
      body: string;
    }>;
    const stored = readArchive<{ url: string; body: Buffer }>(archive, 'select url, body from pages order by url');
    expect(pages).toEqual(stored.map((row) => ({ url: row.url, body: row.body.toString('base64') })));
  });

  it('refuses writes, ATTACH, VACUUM INTO and settings, on the page and the downloads, and the archive is unchanged', async () => {
    const before = fileSha256(archive);
    const counts = () =>
      readArchive(
        archive,
        'select (select count(*) from pages) p, (select count(*) from urls) u, (select count(*) from links) l, (select group_concat(sql) from sqlite_schema) s',
      );
    const countsBefore = counts();
    const elsewhere = tmp.path('elsewhere.sqlite');
    const refused = [
      'delete from pages',
      'delete from url',
      "update url set state = 'queued'",
      "insert into meta (key, value) values ('x', 'y')",
      'drop table url',
      'create table t (x)',
      `attach database '${elsewhere}' as other`,
      `vacuum into '${elsewhere}'`,
      'pragma writable_schema = 1',
      'pragma writable_schema = on',
      '/* first */ PRAGMA journal_mode=delete',
      'begin immediate',
      "select load_extension('/tmp/nothing.so')",
      'select 1; delete from url',
    ];
    for (const sql of refused) {
      const page = await get(ui.url, sqlPath(sql));
      expect(page.status, sql).toBe(400);
      expect(errorOf(page.body), sql).toMatch(
        /^(query only reads|query refuses|invalid SQL|query takes exactly one|query failed: not authorized)/,
      );
      for (const path of ['/sql.csv', '/sql.json']) expect((await get(ui.url, sqlPath(sql, path))).status, `${path} ${sql}`).toBe(400);
    }
    expect(errorOf((await get(ui.url, sqlPath('pragma writable_schema = 1'))).body)).toBe(
      'query only reads: a PRAGMA that sets a value is refused',
    );
    expect(existsSync(elsewhere)).toBe(false);
    expect(fileSha256(archive)).toBe(before);
    expect(counts()).toEqual(countsBefore);
    // Reading pragmas still work.
    expect(tableRows((await get(ui.url, sqlPath('pragma integrity_check'))).body, 'results')).toEqual([['ok']]);
  });

  it('refuses a query longer than a person types, whole, with no trace of the server', async () => {
    const long = `select '${'x'.repeat(10_001)}'`;
    const page = await get(ui.url, sqlPath(long));
    expect(page.status).toBe(400);
    expect(errorOf(page.body)).toBe('query too long: 10,010 characters, at most 10,000');
    const broken = await get(ui.url, sqlPath('select * from nowhere_<b>'));
    expect(broken.status).toBe(400);
    expect(errorOf(broken.body)).toMatch(/^invalid SQL: /);
    expect(broken.body).not.toMatch(/ at .*\.(ts|js):\d+/);
  });

  it('stops a query at its time limit and says so with 503; the page and a download, and the server answers on', async () => {
    const page = await get(ui.url, sqlPath(ENDLESS));
    expect(page.status).toBe(503);
    expect(errorOf(page.body)).toBe('The query was stopped after 10 s, its time limit: narrow it, or run it with crawlite query.');
    const download = await get(ui.url, sqlPath(ENDLESS, '/sql.csv'));
    expect(download.status).toBe(503);
    expect(download.body).toContain('stopped after 12 s');
    expect(tableRows((await get(ui.url, sqlPath('select 1 as one'))).body, 'results')).toEqual([['1']]);
  });
});
