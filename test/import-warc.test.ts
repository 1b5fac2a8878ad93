import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCRecord, WARCSerializer } from 'warcio';
import { execCli, runCli } from './support/cli.js';
import { readArchive, tempDir } from './support/archive.js';
import { startServer, type TestServer } from './support/test-server.js';

const run = promisify(execFile);
/** Debian's wget writes the WARCs these tests import; .ci/run installs it. */
const WGET = existsSync('/usr/bin/wget');
if (!WGET)
  console.log('import-warc: skipping the import tests: they read WARCs written by wget, which is not installed (apt-get install wget)');

const GZ_PAGE = '<!doctype html><title>gz</title><p>compressed <a href="/">home</a> <a href="/c?x=1">c</a></p>';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const INDEX =
  '<!doctype html><html><head><title>index</title><link rel="stylesheet" href="/s.css"><link rel="canonical" href="/"></head>' +
  '<body><a href="/b">b</a> <a href="/r">r</a> <a href="/missing">missing</a> <img src="/i.png"> <a href="https://elsewhere.example/">off</a></body></html>';

/** A small site: a gzip page, a redirect, a 404, an image, a stylesheet with an image, a page with a query. */
async function site(): Promise<TestServer> {
  return startServer((req, res, path) => {
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(INDEX);
    if (path === '/b') return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(GZ_PAGE));
    if (path === '/c?x=1') return res.writeHead(200, { 'content-type': 'text/html' }).end('<p>c <a href="/b">b</a></p>');
    if (path === '/r') return res.writeHead(301, { location: '/b' }).end();
    if (path === '/i.png' || path === '/bg.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    if (path === '/s.css') return res.writeHead(200, { 'content-type': 'text/css' }).end('body { background: url(/bg.png) }');
    return res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  });
}

/** wget's own WARC of the site (exit 8 only says a 404 was met). */
async function wgetWarc(url: string, dir: string): Promise<string> {
  await run(
    '/usr/bin/wget',
    ['-q', '-r', '-l', '5', '-p', '-e', 'robots=off', `--warc-file=${dir}/site`, '--no-warc-keep-log', '-P', `${dir}/mirror`, url],
    { timeout: 20_000 },
  ).catch((error: { code?: number }) => {
    if (error.code !== 8) throw error;
  });
  return `${dir}/site.warc.gz`;
}

interface PageRow {
  url: string;
  status: number;
  content_type: string | null;
  body: Buffer;
  location: string | null;
  headers: string;
  sha1: string;
  http_version: string;
  reason: string;
  raw_headers: Buffer;
  request_method: string;
  request_target: string;
  request_headers: Buffer;
  remote_ip: string;
  started_at: string;
}

const base32Sha1 = (body: Buffer) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of createHash('sha1').update(body).digest()) bits += byte.toString(2).padStart(8, '0');
  return `sha1:${(bits.match(/.{1,5}/g) ?? []).map((group) => alphabet[parseInt(group.padEnd(5, '0'), 2)]).join('')}`;
};

describe.skipIf(!WGET)('crawlite import', () => {
  let server: TestServer;
  const tmp = tempDir();
  let warc: string;

  beforeAll(async () => {
    server = await site();
    warc = await wgetWarc(server.url, tmp.dir);
  });
  afterAll(async () => {
    await server.close();
    tmp.cleanup();
  });

  it('imports a WARC written by wget: pages with decoded bodies and wire fields, links, urls', async () => {
    const db = tmp.path('wget.sqlite');
    const result = await runCli(['import', warc, '--db', db]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/responses? imported/);
    const pages = new Map(readArchive<PageRow>(db, 'select * from pages').map((row) => [row.url.slice(server.url.length - 1), row]));
    // wget asks for no compression and does not read the gzip body it got anyway, so it never fetched /c?x=1.
    expect([...pages.keys()].sort()).toEqual(['/', '/b', '/bg.png', '/i.png', '/missing', '/r', '/s.css']);
    const gz = pages.get('/b')!;
    expect(gz.body.toString()).toBe(GZ_PAGE);
    expect(JSON.parse(gz.headers)).toMatchObject({ 'content-type': 'text/html', 'content-encoding': 'gzip' });
    expect(gz.sha1).toBe(base32Sha1(Buffer.from(GZ_PAGE)));
    expect(pages.get('/i.png')!.body.equals(PNG)).toBe(true);
    expect(pages.get('/')!.body.toString()).toBe(INDEX);
    expect(pages.get('/r')).toMatchObject({ status: 301, location: '/b', reason: 'Moved Permanently' });
    expect(pages.get('/missing')).toMatchObject({ status: 404, reason: 'Not Found' });
    const index = pages.get('/')!;
    expect(index).toMatchObject({
      http_version: 'HTTP/1.1',
      reason: 'OK',
      request_method: 'GET',
      request_target: '/',
      remote_ip: '127.0.0.1',
    });
    expect(index.raw_headers.toString()).toMatch(/^content-type: text\/html; charset=utf-8\r\n(.*\r\n)*$/);
    expect(index.request_headers.toString()).toMatch(/^Host: 127\.0\.0\.1:\d+\r\n(.*\r\n)*$/);
    expect(index.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);

    const links = readArchive<{ from_url: string; to_url: string; kind: string }>(
      db,
      'select from_url, to_url, kind from links where from_url = ? order by to_url',
      server.url,
    );
    expect(links.map((link) => [link.to_url.replace(server.url, '/'), link.kind])).toEqual([
      ['/', 'canonical'],
      ['/b', 'link'],
      ['/i.png', 'requisite'],
      ['/missing', 'link'],
      ['/r', 'link'],
      ['/s.css', 'requisite'],
      ['https://elsewhere.example/', 'link'],
    ]);
    expect(readArchive(db, 'select kind from links where from_url = ?', `${server.url}r`)).toEqual([{ kind: 'redirect' }]);
    expect(readArchive(db, 'select to_url from links where from_url = ?', `${server.url}s.css`)).toEqual([
      { to_url: `${server.url}bg.png` },
    ]);
    // Imported responses are done; a link target the WARC has no response for is skipped, with why.
    const urls = readArchive<{ url: string; state: string; error: string | null }>(db, 'select url, state, error from urls order by url');
    expect(urls.filter((u) => u.state === 'done')).toHaveLength(7);
    // The import reads the decoded gzip page, as a crawl does, and finds /c?x=1, which the WARC lacks.
    expect(urls.filter((u) => u.state !== 'done')).toEqual([
      { url: `${server.url}c?x=1`, state: 'skipped', error: expect.stringMatching(/no response for it/) },
      { url: 'https://elsewhere.example/', state: 'skipped', error: expect.stringMatching(/no response for it/) },
    ]);
    const runs = readArchive<{ options: string; ended_by: string }>(db, 'select options, ended_by from run');
    expect(runs).toEqual([{ options: JSON.stringify({ import: { files: [warc] } }), ended_by: 'finished' }]);
    const stats = await runCli(['stats', db, '--json']);
    expect(JSON.parse(stats.stdout)).toMatchObject({ urls: { done: 7, skipped: 2 }, skips: [{ code: 'not_in_warc', count: 2 }] });
  });

  it('resolves revisit records to their original payload (by WARC-Refers-To, and by payload digest alone)', async () => {
    const body = '<html><a href="/next">next</a></html>';
    const original = WARCRecord.create(
      { url: 'http://site.example/a', date: '2024-01-02T03:04:05Z', type: 'response', httpHeaders: { 'Content-Type': 'text/html' } },
      [new TextEncoder().encode(body)],
    );
    const digestOpts = { gzip: true, digest: { algo: 'sha-1' as const, prefix: 'sha1:', base32: true } };
    const first = await WARCSerializer.serialize(original, digestOpts);
    const digest = original.warcHeaders.headers.get('WARC-Payload-Digest')!;
    const revisit = (url: string, extra: Record<string, string>) =>
      WARCRecord.create({
        url,
        date: '2024-02-02T03:04:05Z',
        type: 'revisit',
        httpHeaders: { 'Content-Type': 'text/html', 'X-Again': 'yes' },
        warcHeaders: { 'WARC-Payload-Digest': digest, ...extra },
      });
    const byId = await WARCSerializer.serialize(
      revisit('http://site.example/b', { 'WARC-Refers-To': original.warcHeaders.headers.get('WARC-Record-ID')! }),
      digestOpts,
    );
    const byDigest = await WARCSerializer.serialize(revisit('http://site.example/c', {}), digestOpts);
    const orphan = await WARCSerializer.serialize(
      revisit('http://site.example/d', { 'WARC-Payload-Digest': 'sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
      digestOpts,
    );
    const file = tmp.path('revisits.warc.gz');
    writeFileSync(file, Buffer.concat([first, byId, byDigest, orphan]));
    const db = tmp.path('revisits.sqlite');
    const result = await runCli(['import', file, '--db', db]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/3 responses imported \(2 of them revisit records/);
    expect(result.stdout).toMatch(/revisit_unresolved 1/);
    const pages = readArchive<{ url: string; body: Buffer; headers: string }>(db, 'select url, body, headers from pages order by url');
    expect(pages.map((page) => [page.url, page.body.toString()])).toEqual([
      ['http://site.example/a', body],
      ['http://site.example/b', body],
      ['http://site.example/c', body],
    ]);
    expect(JSON.parse(pages[1]!.headers)).toMatchObject({ 'x-again': 'yes' });
    expect(readArchive(db, "select to_url from links where from_url = 'http://site.example/c'")).toEqual([
      { to_url: 'http://site.example/next' },
    ]);
    expect(readArchive(db, 'select count(*) as n from body')).toEqual([{ n: 1 }]);
  });

  describe('damaged input', () => {
    const record = (i: number) =>
      WARCRecord.create(
        { url: `http://site.example/${i}`, date: '2024-01-02T03:04:05Z', type: 'response', httpHeaders: { 'Content-Type': 'text/plain' } },
        [new TextEncoder().encode(`body ${i}`)],
      );
    const serialized = async (gzip: boolean) =>
      Promise.all([0, 1, 2].map(async (i) => Buffer.from(await WARCSerializer.serialize(record(i), { gzip }))));

    it('a .warc.gz cut in the middle of a member: one line with the member offset, the records before it kept', async () => {
      const members = await serialized(true);
      const offset = members[0]!.length + members[1]!.length;
      const file = tmp.path('cut.warc.gz');
      writeFileSync(file, Buffer.concat([members[0]!, members[1]!, members[2]!.subarray(0, Math.floor(members[2]!.length / 2))]));
      const db = tmp.path('cut.sqlite');
      const result = await execCli(['import', file, '--db', db]);
      expect(result.code).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^crawlite: ${file}: offset ${offset}: .*(truncated|ends)`));
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(readArchive(db, 'select url from pages order by url')).toEqual([
        { url: 'http://site.example/0' },
        { url: 'http://site.example/1' },
      ]);
    });

    it('a record whose Content-Length is short by a few bytes: one line with its offset; it is read as long as it says, marked cut, as warcio reads it', async () => {
      const [a, b, c] = await serialized(false);
      const lying = Buffer.from(
        b!.toString('latin1').replace(/Content-Length: (\d+)/, (_m, n: string) => `Content-Length: ${Number(n) - 5}`),
        'latin1',
      );
      const file = tmp.path('lying.warc');
      writeFileSync(file, Buffer.concat([a!, lying, c!]));
      const db = tmp.path('lying.sqlite');
      const result = await execCli(['import', file, '--db', db]);
      expect(result.code).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^crawlite: ${file}: offset ${a!.length}: the record's Content-Length \\(\\d+\\) is 5 bytes short`),
      );
      expect(readArchive(db, 'select url, truncated from pages order by url')).toEqual([
        { url: 'http://site.example/0', truncated: null },
        { url: 'http://site.example/1', truncated: 'length' },
        { url: 'http://site.example/2', truncated: null },
      ]);
    });

    it('a file that is not a WARC, and a missing one', async () => {
      const text = tmp.path('notes.txt');
      writeFileSync(text, 'just some notes\nnothing else\n');
      const db = tmp.path('text.sqlite');
      const result = await execCli(['import', text, '--db', db]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`crawlite: ${text}: offset 0: not a WARC file (it starts with "just some notes")\n`);
      const missing = await execCli(['import', tmp.path('nope.warc.gz'), '--db', db]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe(`crawlite: ${tmp.path('nope.warc.gz')}: no such file; nothing was imported\n`);
    });
  });

  it("round trip: a crawl of a site and the import of wget's WARC of it agree on pages and links", async () => {
    const crawlDb = tmp.path('crawl.sqlite');
    const crawl = await execCli(['crawl', server.url, '--db', crawlDb, '-q']);
    expect(crawl.code).toBe(0);
    const importDb = tmp.path('roundtrip.sqlite');
    expect((await execCli(['import', warc, '--db', importDb, '-q'])).code).toBe(0);
    type Row = { url: string; status: number; content_type: string | null; body: Buffer };
    const pagesOf = (db: string) =>
      new Map(readArchive<Row>(db, 'select url, status, content_type, body from pages').map((row) => [row.url, row]));
    const crawled = pagesOf(crawlDb);
    const imported = pagesOf(importDb);
    const both = [...imported.keys()].filter((url) => crawled.has(url)).sort();
    expect(both.length).toBe(7);
    for (const url of both) {
      const [a, b] = [crawled.get(url)!, imported.get(url)!];
      expect({ url, status: b.status, type: b.content_type, body: b.body.toString('base64') }).toEqual({
        url,
        status: a.status,
        type: a.content_type,
        body: a.body.toString('base64'),
      });
    }
    const linksOf = (db: string) =>
      readArchive<{ line: string }>(db, "select from_url || ' ' || to_url || ' ' || kind || ' ' || nofollow as line from links order by 1")
        .map((row) => row.line)
        .filter((line) => both.includes(line.split(' ')[0]!));
    expect(linksOf(importDb)).toEqual(linksOf(crawlDb));
    expect(readdirSync(tmp.dir)).toContain('site.warc.gz');
    expect(gunzipSync(readFileSync(warc)).length).toBeGreaterThan(0);
  });
});
