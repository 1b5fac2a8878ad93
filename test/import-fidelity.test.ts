import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCRecord, WARCSerializer } from 'warcio';
import { runCli } from './support/cli.js';
import { readArchive, tempDir } from './support/archive.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// An import keeps every capture a WARC holds, in time order, and gives URLs the kind and depth a crawl would.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const SITE = 'http://site.example';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** A response record as any WARC writer makes it. */
function response(url: string, date: string, body: string | Buffer, contentType = 'text/html'): WARCRecord {
  return WARCRecord.create({ url, date, type: 'response', httpHeaders: { 'Content-Type': contentType } }, [typeof body === 'string' ? new TextEncoder().encode(body) : body]);
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
    expect(readArchive(db, 'SELECT body FROM pages WHERE url = ?', `${SITE}/news`)).toEqual([{ body: Buffer.from('<p>second edition</p>') }]);
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
      response(`${SITE}/`, '2024-01-01T00:00:05Z', '<link rel="stylesheet" href="/style.css"><img src="/img/logo.png"><a href="/about">about</a>'),
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
    const kinds = (db: string) => readArchive<{ url: string; kind: string; depth: number }>(db, 'SELECT url, kind, depth FROM urls ORDER BY url');
    const expected = kinds(crawled);
    expect(expected.filter((row) => row.kind === 'requisite').length).toBe(6);
    expect(Math.max(...expected.map((row) => row.depth))).toBe(4);
    expect(kinds(imported)).toEqual(expected);
  });
});
