import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { httpResponse, rawRecord } from '../support/raw-warc.js';
import { buildZip, type ZipItem } from '../support/zip-build.js';

// A WACZ's WARCs are imported as WARC files, and its page lists say which URLs are pages: the seeds they
// mark are where the walk that gives depths starts, a URL they list is a page however it was linked,
// a page without a title of its own takes the one listed, and what no list names and nothing links to is a
// requisite.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('latin1');
const DATE = '2024-01-02T03:04:05Z';
// /a and /b link to each other, so only the seed tells which one the crawl started at; /a shows /photo, and
// /b loads /script.js, both requisites by their links; /photo was visited as a page all the same.
const WARC = Buffer.concat([
  rawRecord(
    'response',
    'http://site.example/a',
    DATE,
    httpResponse('text/html', '<title>page a</title><a href="/b">b</a><img src="/photo">'),
  ),
  rawRecord(
    'response',
    'http://site.example/b',
    DATE,
    httpResponse('text/html', '<title>page b</title><a href="/a">a</a><script src="/script.js"></script>'),
  ),
  rawRecord('response', 'http://site.example/photo', DATE, httpResponse('image/png', PNG)),
  rawRecord('response', 'http://site.example/script.js', DATE, httpResponse('text/javascript', 'let x = 1;')),
  // Fetched by the browser on its own: nothing links to it.
  rawRecord('response', 'http://site.example/favicon.ico', DATE, httpResponse('image/x-icon', PNG)),
]);
const pagesJsonl = (...lines: object[]) =>
  [{ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' }, ...lines].map((line) => JSON.stringify(line)).join('\n');
const PAGES = pagesJsonl(
  { id: '1', url: 'http://site.example/b', ts: DATE, title: 'a title the page does not have', seed: true },
  { id: '2', url: 'http://site.example/photo', ts: DATE, title: 'A photo' },
);
// Titled by its URL, as recorders title a page that has no title: no title.
const EXTRA = pagesJsonl({ id: '3', url: 'http://site.example/script.js', ts: DATE, title: 'http://site.example/script.js' });

function wacz(name: string, items: ZipItem[]): string {
  const path = tmp.path(name);
  writeFileSync(path, buildZip(items).bytes);
  return path;
}

async function imported(name: string, ...files: string[]): Promise<{ db: string; stdout: string }> {
  const db = tmp.path(`${name}.sqlite`);
  const result = await execCli(['import', ...files, '--db', db]);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toBe('');
  return { db, stdout: result.stdout };
}

const rows = (db: string) => readArchive(db, 'SELECT url, kind, depth, title FROM pages ORDER BY url');

describe("a WACZ's page lists", () => {
  const items: ZipItem[] = [
    { name: 'archive/data.warc', data: WARC },
    { name: 'pages/pages.jsonl', data: PAGES, method: 8 },
    { name: 'pages/extraPages.jsonl', data: EXTRA, method: 8 },
    { name: 'datapackage.json', data: '{}', method: 8 },
  ];

  it('start the walk at the seeds, make the URLs they list pages, and give a titleless page its listed title', async () => {
    const { db, stdout } = await imported('listed', wacz('listed.wacz', items));
    expect(rows(db)).toEqual([
      { url: 'http://site.example/a', kind: 'page', depth: 1, title: 'page a' },
      { url: 'http://site.example/b', kind: 'page', depth: 0, title: 'page b' },
      { url: 'http://site.example/favicon.ico', kind: 'requisite', depth: 0, title: null },
      { url: 'http://site.example/photo', kind: 'page', depth: 2, title: 'A photo' },
      { url: 'http://site.example/script.js', kind: 'page', depth: 1, title: null },
    ]);
    expect(stdout).toContain('listed as pages by the WACZ (pages.jsonl): 3 responses');
  });

  it('leave a WACZ without them imported as its WARC alone would be', async () => {
    const warc = tmp.path('alone.warc');
    writeFileSync(warc, WARC);
    const alone = rows((await imported('alone', warc)).db);
    expect(alone).toContainEqual({ url: 'http://site.example/photo', kind: 'requisite', depth: 1, title: null });
    expect(alone).toContainEqual({ url: 'http://site.example/favicon.ico', kind: 'page', depth: 0, title: null });
    expect(rows((await imported('unlisted', wacz('unlisted.wacz', [items[0]!]))).db)).toEqual(alone);
  });

  it('are read the same from a WACZ whose WARC is deflated', async () => {
    const deflated = wacz('deflated.wacz', [{ ...items[0]!, method: 8 }, ...items.slice(1)]);
    expect(rows((await imported('deflated', deflated)).db)).toEqual(rows((await imported('stored', wacz('stored.wacz', items))).db));
  });
});

it('imports WACZ and WARC files named together, the WACZ holding several WARCs read in name order', async () => {
  const other = tmp.path('other.warc');
  writeFileSync(other, rawRecord('response', 'http://other.example/', DATE, httpResponse('text/plain', 'other')));
  const [first, second] = [WARC.subarray(0, WARC.indexOf('WARC/1.1', 10)), WARC.subarray(WARC.indexOf('WARC/1.1', 10))];
  const two = wacz('two.wacz', [
    { name: 'archive/rec-2.warc', data: second },
    { name: 'archive/rec-1.warc.gz', data: gzipSync(first), method: 8 },
    { name: 'pages/pages.jsonl', data: PAGES },
  ]);
  const { db, stdout } = await imported('mixed', other, two);
  expect(stdout).toContain('from 3 WARC files: 6 records read, 6 responses imported');
  expect(readArchive(db, 'SELECT url FROM pages ORDER BY url').map((row) => row.url)).toEqual([
    'http://other.example/',
    'http://site.example/a',
    'http://site.example/b',
    'http://site.example/favicon.ico',
    'http://site.example/photo',
    'http://site.example/script.js',
  ]);
});

it("imports py-wacz's own example WACZ: its WARC's response, a page at depth 0 with its title", async () => {
  const fixture = fileURLToPath(new URL('../fixtures/wacz/py-wacz-valid-example-1.wacz', import.meta.url));
  const { db, stdout } = await imported('py-wacz', fixture);
  expect(stdout).toContain('4 records read, 1 response imported');
  expect(readArchive(db, 'SELECT url, status, kind, depth, title FROM pages')).toEqual([
    { url: 'http://www.example.com/', status: 200, kind: 'page', depth: 0, title: 'Example Domain' },
  ]);
});
