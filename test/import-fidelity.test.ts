import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCRecord, WARCSerializer } from 'warcio';
import { runCli } from './support/cli.js';
import { readArchive, tempDir } from './support/archive.js';
import { readWarc } from './support/warc-read.js';
import { httpRequest, httpResponse, rawRecord } from './support/raw-warc.js';
import { openArchive } from '../src/storage/reader/archive-reader.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// An import keeps every capture a WARC holds, in time order, and gives URLs the kind and depth a crawl would.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const SITE = 'http://site.example';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** A response record as any WARC writer makes it. */
function response(url: string, date: string, body: string | Buffer, contentType = 'text/html'): WARCRecord {
  // WARC/1.1, whose dates may have a fraction of a second (warcio cuts it off a WARC/1.0 record's).
  return WARCRecord.create({ url, date, type: 'response', warcVersion: 'WARC/1.1', httpHeaders: { 'Content-Type': contentType } }, [
    typeof body === 'string' ? new TextEncoder().encode(body) : body,
  ]);
}

async function writeWarc(name: string, records: WARCRecord[]): Promise<string> {
  const file = tmp.path(name);
  const parts: Uint8Array[] = [];
  for (const record of records) parts.push(await WARCSerializer.serialize(record, { gzip: true }));
  writeFileSync(file, Buffer.concat(parts));
  return file;
}

async function importWarc(file: string, db: string): Promise<void> {
  const result = await runCli(['import', file, '--db', db]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
}

interface CaptureRow {
  fetched_at: string;
  body: Buffer;
  latest: number;
}
const capturesOf = (db: string, url: string) =>
  readArchive<CaptureRow>(db, 'SELECT fetched_at, body, latest FROM captures WHERE url = ? ORDER BY fetched_at, latest', url).map((row) => [
    row.fetched_at,
    row.body.toString(),
    row.latest,
  ]);

describe('crawlite import keeps every capture', () => {
  it('keeps two responses of one URL in the same second with different payloads; the later record is the page', async () => {
    const file = await writeWarc('same-second.warc.gz', [
      response(`${SITE}/news`, '2024-05-01T10:00:00Z', '<p>first edition</p>'),
      response(`${SITE}/news`, '2024-05-01T10:00:00Z', '<p>second edition</p>'),
    ]);
    const db = tmp.path('same-second.sqlite');
    await importWarc(file, db);
    expect(capturesOf(db, `${SITE}/news`)).toEqual([
      ['2024-05-01T10:00:00.000Z', '<p>first edition</p>', 0],
      ['2024-05-01T10:00:00.000Z', '<p>second edition</p>', 1],
    ]);
    expect(readArchive(db, 'SELECT body FROM pages WHERE url = ?', `${SITE}/news`)).toEqual([
      { body: Buffer.from('<p>second edition</p>') },
    ]);
  });

  it('merges two archives with different captures of one URL in the same second into both captures; merged again, nothing more', async () => {
    const one = tmp.path('edition-1.sqlite');
    const two = tmp.path('edition-2.sqlite');
    await importWarc(await writeWarc('edition-1.warc.gz', [response(`${SITE}/news`, '2024-05-01T10:00:00Z', '<p>first edition</p>')]), one);
    await importWarc(
      await writeWarc('edition-2.warc.gz', [response(`${SITE}/news`, '2024-05-01T10:00:00Z', '<p>second edition</p>')]),
      two,
    );
    const merged = tmp.path('editions.sqlite');
    expect((await runCli(['merge', one, two, '--db', merged, '-q'])).code).toBe(0);
    const both = [
      ['2024-05-01T10:00:00.000Z', '<p>first edition</p>', 0],
      ['2024-05-01T10:00:00.000Z', '<p>second edition</p>', 1],
    ];
    expect(capturesOf(merged, `${SITE}/news`)).toEqual(both);
    expect((await runCli(['merge', one, two, '--db', merged, '-q'])).code).toBe(0);
    expect(capturesOf(merged, `${SITE}/news`)).toEqual(both);
  });

  it('keeps the fraction of a second a WARC-Date gives: records a microsecond apart stay two captures, and export writes the dates back as read', async () => {
    const file = await writeWarc('microseconds.warc.gz', [
      response(`${SITE}/ticker`, '2024-05-01T10:00:00.123457Z', '<p>later</p>'),
      response(`${SITE}/ticker`, '2024-05-01T10:00:00.123456Z', '<p>earlier</p>'),
    ]);
    const db = tmp.path('microseconds.sqlite');
    await importWarc(file, db);
    expect(capturesOf(db, `${SITE}/ticker`)).toEqual([
      ['2024-05-01T10:00:00.123456Z', '<p>earlier</p>', 0],
      ['2024-05-01T10:00:00.123457Z', '<p>later</p>', 1],
    ]);
    const warc = tmp.path('microseconds-out.warc.gz');
    expect((await runCli(['export', db, '--warc', warc, '-q'])).code).toBe(0);
    const dates = (await readWarc(warc))
      .filter((record) => record.type === 'response')
      .map((record) => record.field('WARC-Date'))
      .sort();
    expect(dates).toEqual(['2024-05-01T10:00:00.123456Z', '2024-05-01T10:00:00.123457Z']);
  });

  it('keeps records out of time order in time order: the latest capture is the page, with its links', async () => {
    const file = await writeWarc('out-of-order.warc.gz', [
      response(`${SITE}/`, '2024-03-01T00:00:00Z', '<a href="/new">new</a>'),
      response(`${SITE}/`, '2024-01-01T00:00:00Z', '<a href="/old">old</a>'),
      response(`${SITE}/`, '2024-02-01T00:00:00Z', '<a href="/older">older</a>'),
    ]);
    const db = tmp.path('out-of-order.sqlite');
    await importWarc(file, db);
    expect(capturesOf(db, `${SITE}/`)).toEqual([
      ['2024-01-01T00:00:00.000Z', '<a href="/old">old</a>', 0],
      ['2024-02-01T00:00:00.000Z', '<a href="/older">older</a>', 0],
      ['2024-03-01T00:00:00.000Z', '<a href="/new">new</a>', 1],
    ]);
    expect(readArchive(db, 'SELECT fetched_at FROM pages WHERE url = ?', `${SITE}/`)).toEqual([{ fetched_at: '2024-03-01T00:00:00.000Z' }]);
    expect(readArchive(db, 'SELECT to_url FROM links WHERE from_url = ?', `${SITE}/`)).toEqual([{ to_url: `${SITE}/new` }]);
    // The same WARC imported again adds no capture: each is the same capture.
    await importWarc(file, db);
    expect(capturesOf(db, `${SITE}/`)).toHaveLength(3);
  });

  it('rebuilds kind and depth from the links: an image whose record comes before its page is a requisite one level down', async () => {
    const file = await writeWarc('requisite-first.warc.gz', [
      response(`${SITE}/img/logo.png`, '2024-01-01T00:00:01Z', PNG, 'image/png'),
      response(`${SITE}/style.css`, '2024-01-01T00:00:02Z', 'body { background: url(/img/bg.png) }', 'text/css'),
      response(`${SITE}/img/bg.png`, '2024-01-01T00:00:03Z', PNG, 'image/png'),
      response(`${SITE}/about`, '2024-01-01T00:00:04Z', '<img src="/img/logo.png"><a href="/about/team">team</a>'),
      response(
        `${SITE}/`,
        '2024-01-01T00:00:05Z',
        '<link rel="stylesheet" href="/style.css"><img src="/img/logo.png"><a href="/about">about</a>',
      ),
    ]);
    const db = tmp.path('requisite-first.sqlite');
    await importWarc(file, db);
    expect(readArchive(db, 'SELECT url, kind, depth FROM urls ORDER BY url')).toEqual([
      { url: `${SITE}/`, kind: 'page', depth: 0 },
      { url: `${SITE}/about`, kind: 'page', depth: 1 },
      { url: `${SITE}/about/team`, kind: 'page', depth: 2 },
      { url: `${SITE}/img/bg.png`, kind: 'requisite', depth: 2 },
      { url: `${SITE}/img/logo.png`, kind: 'requisite', depth: 1 },
      { url: `${SITE}/style.css`, kind: 'requisite', depth: 1 },
    ]);
    const stats = await runCli(['stats', db]);
    expect(stats.stdout).toMatch(/^Imported {2}5 responses \(2 pages\) from WARC files in 1 import, [\d.]+ s$/m);
    expect(stats.stdout).not.toMatch(/^Time /m);
  });
  it('reads a response as the records before it made its URL, however soon after them it comes: an HTML requisite is not read for links', async () => {
    // The image's record follows its page's at once, so it is read before the page is written: its URL is
    // a requisite only once the page is. A crawl does not read a requisite's HTML for links, nor does an import.
    const file = await writeWarc('requisite-next.warc.gz', [
      response(`${SITE}/`, '2024-01-01T00:00:01Z', '<img src="/pic"><a href="/about">about</a>'),
      response(`${SITE}/pic`, '2024-01-01T00:00:02Z', '<a href="/secret">not a page link</a>'),
      response(`${SITE}/about`, '2024-01-01T00:00:03Z', '<a href="/about/team">team</a>'),
    ]);
    const db = tmp.path('requisite-next.sqlite');
    await importWarc(file, db);
    expect(readArchive(db, 'SELECT url, kind, depth FROM urls ORDER BY url')).toEqual([
      { url: `${SITE}/`, kind: 'page', depth: 0 },
      { url: `${SITE}/about`, kind: 'page', depth: 1 },
      { url: `${SITE}/about/team`, kind: 'page', depth: 2 },
      { url: `${SITE}/pic`, kind: 'requisite', depth: 1 },
    ]);
  });
});

describe('crawl, export, import', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(
      routes({
        '/robots.txt': { status: 404 },
        '/': html('<link rel="stylesheet" href="/s.css"><img src="/logo.png"><a href="/a">a</a> <a href="/moved">moved</a>', 'root'),
        '/a': html('<img src="/a.png"><script src="/app.js"></script><a href="/b">b</a>', 'a'),
        '/b': html('<meta http-equiv="refresh" content="0; url=/c"><p>b</p>', 'b'),
        '/c': html('<img src="/logo.png"><a href="/">home</a> <a href="/deep/1">deep</a>', 'c'),
        '/deep/1': html('<a href="/deep/2">2</a>', 'deep 1'),
        '/deep/2': html('<p>the end</p>', 'deep 2'),
        '/moved': { status: 301, headers: { location: '/d' } },
        '/d': html('<a href="/a">a</a><img src="/d.png">', 'd'),
        '/s.css': { headers: { 'content-type': 'text/css' }, body: 'body { background: url(/bg.png) }' },
        '/logo.png': { headers: { 'content-type': 'image/png' }, body: PNG },
        '/a.png': { headers: { 'content-type': 'image/png' }, body: PNG },
        '/d.png': { headers: { 'content-type': 'image/png' }, body: PNG },
        '/bg.png': { headers: { 'content-type': 'image/png' }, body: PNG },
        '/app.js': { headers: { 'content-type': 'text/javascript' }, body: 'void 0;' },
      }),
    );
  });
  afterAll(() => server.close());

  it('gives every URL the kind and depth the crawl gave it, and stats says imported', async () => {
    const crawled = tmp.path('crawled.sqlite');
    expect((await runCli(['crawl', server.url, '--db', crawled, '-q'])).code).toBe(0);
    const warc = tmp.path('crawled.warc.gz');
    expect((await runCli(['export', crawled, '--warc', warc, '-q'])).code).toBe(0);
    const imported = tmp.path('imported.sqlite');
    await importWarc(warc, imported);
    const kinds = (db: string) =>
      readArchive<{ url: string; kind: string; depth: number }>(db, 'SELECT url, kind, depth FROM urls ORDER BY url');
    const expected = kinds(crawled);
    expect(expected.filter((row) => row.kind === 'requisite').length).toBe(6);
    expect(Math.max(...expected.map((row) => row.depth))).toBe(4);
    expect(kinds(imported)).toEqual(expected);
  });
});

describe('requests other than GET, and truncated records', () => {
  const FORM_BODY = 'q=crawl+archive&lang=en';
  const JSON_BODY = '{"op":"list"}';
  let imported: string;

  beforeAll(async () => {
    const file = tmp.path('methods.warc');
    writeFileSync(
      file,
      Buffer.concat([
        rawRecord('request', `${SITE}/search`, '2024-06-01T00:00:00Z', httpRequest('GET', '/search')),
        rawRecord(
          'response',
          `${SITE}/search`,
          '2024-06-01T00:00:00Z',
          httpResponse('text/html', '<form method=post><input name=q></form>'),
        ),
        // Later than the GET: still not the page.
        rawRecord(
          'request',
          `${SITE}/search`,
          '2024-06-01T00:00:05Z',
          httpRequest('POST', '/search', FORM_BODY, 'application/x-www-form-urlencoded'),
        ),
        rawRecord('response', `${SITE}/search`, '2024-06-01T00:00:05Z', httpResponse('text/html', '<p>results for crawl archive</p>')),
        rawRecord('request', `${SITE}/api`, '2024-06-01T00:00:06Z', httpRequest('POST', '/api', JSON_BODY, 'application/json')),
        rawRecord('response', `${SITE}/api`, '2024-06-01T00:00:06Z', httpResponse('application/json', '{"items":[]}')),
        rawRecord('response', `${SITE}/big.bin`, '2024-06-01T00:00:07Z', httpResponse('application/octet-stream', 'only the start'), {
          'WARC-Truncated': 'length',
        }),
      ]),
    );
    imported = tmp.path('methods.sqlite');
    await importWarc(file, imported);
  });

  it("keeps a POST's answer as a capture with its request body, never as the URL's page", () => {
    expect(readArchive(imported, 'SELECT request_method, body FROM pages WHERE url = ?', `${SITE}/search`)).toEqual([
      { request_method: 'GET', body: Buffer.from('<form method=post><input name=q></form>') },
    ]);
    const captures = readArchive<{ request_method: string; request_body: Buffer | null; latest: number }>(
      imported,
      'SELECT request_method, request_body, latest FROM captures WHERE url = ? ORDER BY fetched_at',
      `${SITE}/search`,
    );
    expect(captures.map((row) => [row.request_method, row.request_body?.toString() ?? null, row.latest])).toEqual([
      ['GET', null, 1],
      ['POST', FORM_BODY, 0],
    ]);
    // A URL only POSTed to has no page: it is skipped, and its capture kept.
    expect(readArchive(imported, 'SELECT state, error FROM urls WHERE url = ?', `${SITE}/api`)).toEqual([
      { state: 'skipped', error: expect.stringMatching(/only answers to requests other than GET/) },
    ]);
    expect(readArchive(imported, 'SELECT count(*) AS n FROM pages WHERE url = ?', `${SITE}/api`)).toEqual([{ n: 0 }]);
    expect(readArchive(imported, 'SELECT request_body FROM captures WHERE url = ?', `${SITE}/api`)).toEqual([
      { request_body: Buffer.from(JSON_BODY) },
    ]);
  });

  it("never replays a POST's answer for its URL: the URL's timeline and captures by time are its GETs", () => {
    const archive = openArchive(imported);
    try {
      expect(archive.captureTimes(`${SITE}/search`).map((capture) => capture.fetchedAt)).toEqual(['2024-06-01T00:00:00.000Z']);
      expect(archive.captureAt(`${SITE}/search`, '2024-06-01T00:00:05.000Z')).toBeUndefined();
      expect(archive.captureTimes(`${SITE}/api`)).toEqual([]);
    } finally {
      archive.close();
    }
  });

  it('keeps WARC-Truncated', () => {
    expect(readArchive(imported, 'SELECT truncated FROM pages WHERE url = ?', `${SITE}/big.bin`)).toEqual([{ truncated: 'length' }]);
  });

  it('exports them faithfully: the request body, WARC-Truncated, CDXJ keys of their own; imported again, the same captures', async () => {
    const warc = tmp.path('methods-out.warc.gz');
    const cdxj = tmp.path('methods-out.cdxj');
    expect((await runCli(['export', imported, '--warc', warc, '--cdxj', cdxj, '-q'])).code).toBe(0);
    const records = await readWarc(warc);
    const postRequests = records.filter((record) => record.type === 'request' && record.httpHead?.toString('latin1').startsWith('POST '));
    // The URL's own captures first, then the URLs that have no page.
    expect(postRequests.map((record) => [record.field('WARC-Target-URI'), record.payload?.toString()])).toEqual([
      [`${SITE}/search`, FORM_BODY],
      [`${SITE}/api`, JSON_BODY],
    ]);
    const big = records.find((record) => record.type === 'response' && record.field('WARC-Target-URI') === `${SITE}/big.bin`);
    expect(big?.field('WARC-Truncated')).toBe('length');
    const keys = readFileSync(cdxj, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ')[0]);
    expect(keys).toContain('example,site)/search');
    expect(keys).toContain('example,site)/search?__wb_method=post&lang=en&q=crawl%20archive');
    // pywb keys a JSON body by its members (test/export/post-keys.test.ts).
    expect(keys).toContain('example,site)/api?__wb_method=post&op=list');
    expect(keys.filter((key) => key === 'example,site)/search')).toHaveLength(1);

    const again = tmp.path('methods-again.sqlite');
    await importWarc(warc, again);
    // A record without its request comes back with the GET request an export writes for it.
    const captures = (db: string) =>
      readArchive(
        db,
        "SELECT url, fetched_at, coalesce(request_method, 'GET') AS method, request_body, truncated, latest, sha256 FROM captures ORDER BY url, fetched_at",
      );
    expect(captures(again)).toEqual(captures(imported));
  });
});
