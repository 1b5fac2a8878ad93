import { createHash } from 'node:crypto';
import type { PageRow } from '../src/storage/reader/archive-views.js';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../src/storage/archive/migrate.js';
import { APPLICATION_ID } from '../src/storage/archive/open-archive.js';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { startRawServer, type RawHttpServer } from './support/raw-http-server.js';
import { html, routes, startServer, text, xml, type TestServer } from './support/test-server.js';

// What crawlite must keep of each exchange for a faithful WARC record: the response as received, the request as sent.

const UA = 'wire-test/1.0';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** RFC 4648 base32 spelled out bit by bit, independent of the archive's own. */
function base32(bytes: Buffer): string {
  const bits = [...bytes].map((byte) => byte.toString(2).padStart(8, '0')).join('');
  const groups = bits.match(/.{1,5}/g) ?? [];
  return groups.map((group) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(group.padEnd(5, '0'), 2)]).join('');
}
const warcDigest = (body: Buffer) => `sha1:${base32(createHash('sha1').update(body).digest())}`;

/** A response sent byte for byte: status line, header lines, blank line, body. */
function reply(statusLine: string, headerLines: string[], body: Buffer | string = ''): Buffer {
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([Buffer.from(`${statusLine}\r\n${headerLines.map((line) => `${line}\r\n`).join('')}\r\n`, 'latin1'), payload]);
}

const MIXED_HEADERS = [
  'X-MiXeD-CaSe: One',
  'Set-Cookie: a=1; Path=/',
  'Link: <https://example.com/a>; rel="author"',
  'Set-Cookie: b=2; Path=/',
  'content-TYPE: text/plain',
  'Link: <https://example.com/b>; rel="license"',
  'Content-Length: 5',
  'Connection: close',
];
const MOVED_HEADERS = ['Location: /landing', 'X-Hop: first', 'Content-Length: 0', 'Connection: close'];
const PAGE_BODY = '<html><body>landed</body></html>';
const GZIP_PLAIN = 'compressed page, stored decoded '.repeat(20);

let raw: RawHttpServer;
const tmp = tempDir();

/** A row of the pages view, as the archive reader types it: the wire columns and what they go with. */
type Row = Pick<
  PageRow,
  | 'url'
  | 'status'
  | 'body'
  | 'http_version'
  | 'reason'
  | 'raw_headers'
  | 'request_method'
  | 'request_target'
  | 'request_headers'
  | 'remote_ip'
  | 'started_at'
  | 'fetched_at'
  | 'sha1'
>;
let rows: Map<string, Row>;

beforeAll(async () => {
  const links = ['/mixed', '/fine', '/moved', '/path?q=1', '/old', '/gz', '/bare'].map((href) => `<a href="${href}">x</a>`).join('');
  const index = `<html><body>${links}</body></html>`;
  raw = await startRawServer({
    '/': reply('HTTP/1.1 200 OK', ['Content-Type: text/html', `Content-Length: ${index.length}`, 'Connection: close'], index),
    '/mixed': reply('HTTP/1.1 200 OK', MIXED_HEADERS, 'hello'),
    '/fine': reply('HTTP/1.1 299 Quite Fine', ['Content-Type: text/plain', 'Content-Length: 4', 'Connection: close'], 'fine'),
    '/moved': reply('HTTP/1.1 301 Moved Permanently', MOVED_HEADERS),
    '/landing': reply(
      'HTTP/1.1 200 OK',
      ['Content-Type: text/html', `Content-Length: ${PAGE_BODY.length}`, 'Connection: close'],
      PAGE_BODY,
    ),
    '/path?q=1': reply('HTTP/1.1 200 OK', ['Content-Type: text/plain', 'Content-Length: 5', 'Connection: close'], 'query'),
    '/old': reply('HTTP/1.0 200 OK', ['Content-Type: text/plain', 'Content-Length: 3'], 'old'),
    '/gz': (() => {
      const gz = gzipSync(GZIP_PLAIN);
      return reply(
        'HTTP/1.1 200 OK',
        ['Content-Type: text/plain', 'Content-Encoding: gzip', `Content-Length: ${gz.length}`, 'Connection: close'],
        gz,
      );
    })(),
    '/bare': reply('HTTP/1.1 200', ['Content-Type: text/plain', 'Content-Length: 4', 'Connection: close'], 'bare'),
  });
  const db = tmp.path('wire.sqlite');
  const result = await runCli(['crawl', raw.url, '--db', db, '-q', '--user-agent', UA]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const found = readArchive<Row>(
    db,
    `SELECT url, status, body, http_version, reason, raw_headers, request_method, request_target, request_headers,
            remote_ip, started_at, fetched_at, sha1 FROM pages`,
  );
  rows = new Map(found.map((row) => [new URL(row.url).pathname + new URL(row.url).search, row]));
});

afterAll(async () => {
  await raw.close();
  tmp.cleanup();
});

const row = (path: string): Row => {
  const found = rows.get(path);
  if (!found) throw new Error(`no row for ${path}; have ${[...rows.keys()].join(' ')}`);
  return found;
};

describe('the response as received', () => {
  it('keeps the header block byte for byte: order, case, repeated Set-Cookie and Link', () => {
    expect(row('/mixed').raw_headers!.toString('latin1')).toBe(MIXED_HEADERS.map((line) => `${line}\r\n`).join(''));
    expect(row('/mixed').http_version).toBe('HTTP/1.1');
    expect(row('/mixed').reason).toBe('OK');
  });

  it("keeps the server's own reason phrase, and none when it sent none", () => {
    expect(row('/fine')).toMatchObject({ status: 299, reason: 'Quite Fine' });
    expect(row('/bare')).toMatchObject({ status: 200, reason: '' });
  });

  it('keeps the HTTP version of the status line', () => {
    expect(row('/old').http_version).toBe('HTTP/1.0');
    expect(row('/old').raw_headers!.toString('latin1')).toBe('Content-Type: text/plain\r\nContent-Length: 3\r\n');
  });

  it("gives a redirect's row its own status line and headers", () => {
    expect(row('/moved')).toMatchObject({ status: 301, reason: 'Moved Permanently', http_version: 'HTTP/1.1' });
    expect(row('/moved').raw_headers!.toString('latin1')).toBe(MOVED_HEADERS.map((line) => `${line}\r\n`).join(''));
    expect(row('/landing').raw_headers!.toString('latin1')).toContain(`Content-Length: ${PAGE_BODY.length}\r\n`);
    expect(row('/landing').raw_headers!.toString('latin1')).not.toContain('X-Hop');
  });
});

describe('the request as sent', () => {
  it('is the head the server received, byte for byte, but for the values of cookies sent', () => {
    for (const path of ['/', '/mixed', '/path?q=1', '/moved', '/landing', '/gz']) {
      const { request_method, request_target, request_headers } = row(path);
      const rebuilt = `${request_method} ${request_target} HTTP/1.1\r\n${request_headers!.toString('latin1')}\r\n`;
      const received = raw.heads.get(path)!.replace(/(^|\r\n)(cookie): [^\r]*/gi, '$1$2: [not stored]');
      expect(rebuilt, path).toBe(received);
    }
  });

  it('has the target as on the request line, the method, and the Host, User-Agent and Accept sent', () => {
    const query = row('/path?q=1');
    expect(query.request_method).toBe('GET');
    expect(query.request_target).toBe('/path?q=1');
    const headers = query.request_headers!.toString('latin1');
    expect(headers).toMatch(new RegExp(`^host: 127\\.0\\.0\\.1:${new URL(raw.url).port}\\r\\n`, 'mi'));
    expect(headers).toMatch(new RegExp(`^user-agent: ${UA.replace('.', '\\.')}\\r\\n`, 'mi'));
    expect(headers).toMatch(/^accept: \*\/\*\r\n/im);
  });

  it('has the address connected to and when it started, to the millisecond, before the response was read', () => {
    for (const found of rows.values()) {
      expect(found.remote_ip, found.url).toBe('127.0.0.1');
      expect(found.started_at, found.url).toMatch(ISO_MS);
      expect(found.fetched_at, found.url).toMatch(ISO_MS);
      expect(found.started_at! <= found.fetched_at, found.url).toBe(true);
    }
  });
});

describe('the payload digest', () => {
  it("is 'sha1:' and the base32 SHA-1 of the stored body, the decoded one for a gzipped page", () => {
    expect(row('/gz').body.toString()).toBe(GZIP_PLAIN);
    for (const path of ['/', '/mixed', '/gz', '/landing', '/moved']) {
      expect(row(path).sha1, path).toBe(warcDigest(row(path).body));
      expect(row(path).sha1, path).toMatch(/^sha1:[A-Z2-7]{32}$/);
    }
  });
});

describe('every kind of response a crawl stores', () => {
  let site: TestServer;
  beforeAll(async () => {
    site = await startServer(
      routes({
        '/robots.txt': text('User-agent: *\nSitemap: /sitemap.xml\n'),
        '/sitemap.xml': xml('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/listed</loc></url></urlset>'),
        '/': html('<img src="/pic.png"><a href="/missing">gone</a><a href="/listed">l</a>'),
        '/pic.png': { headers: { 'content-type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
        '/listed': html('listed'),
      }),
    );
  });
  afterAll(() => site.close());

  it('robots.txt, sitemaps, pages, requisites and errors each keep their exchange and digest', async () => {
    const db = tmp.path('kinds.sqlite');
    const result = await runCli(['crawl', site.url, '--db', db, '-q', '--sitemaps']);
    expect(result.code).toBe(0);
    const found = readArchive<Row & { kind: string }>(
      db,
      'SELECT url, kind, status, body, http_version, reason, raw_headers, request_method, request_target, remote_ip, started_at, fetched_at, sha1 FROM pages',
    );
    expect(new Set(found.map((page) => page.kind))).toEqual(new Set(['robots', 'sitemap', 'page', 'requisite']));
    expect(found.some((page) => page.status === 404)).toBe(true);
    for (const page of found) {
      expect(page, page.url).toMatchObject({ http_version: 'HTTP/1.1', request_method: 'GET', remote_ip: '127.0.0.1' });
      expect(page.reason, page.url).toBe(page.status === 404 ? 'Not Found' : 'OK');
      expect(page.request_target, page.url).toBe(new URL(page.url).pathname);
      // Node's server writes its headers in lower case after the ones given.
      expect(page.raw_headers!.toString('latin1'), page.url).toMatch(/(^|\r\n)date: .+\r\n/i);
      expect(page.started_at! <= page.fetched_at, page.url).toBe(true);
      expect(page.sha1, page.url).toBe(warcDigest(page.body));
    }
  });

  it('keeps that secrets were sent, never their values: --header and cookies', async () => {
    const db = tmp.path('secrets.sqlite');
    const result = await runCli(['crawl', site.url, '--db', db, '-q', '--header', 'X-Token: s3cret-value', '--cookie', 'sid=c00kie-value']);
    expect(result.code).toBe(0);
    const found = readArchive<Row>(db, 'SELECT url, request_headers FROM pages WHERE request_headers IS NOT NULL');
    expect(found.length).toBeGreaterThan(2);
    for (const page of found) {
      const headers = page.request_headers!.toString('latin1');
      expect(headers, page.url).toContain('x-token: [not stored]\r\n');
      expect(headers, page.url).toContain('cookie: [not stored]\r\n');
    }
    const file = readFileSync(db);
    expect(file.includes('s3cret-value')).toBe(false);
    expect(file.includes('c00kie-value')).toBe(false);
  });

  it('opens an archive made before the wire was kept, migrates it, and leaves its old rows NULL', async () => {
    const db = tmp.path('v4.sqlite');
    const old = new Database(db);
    old.pragma(`application_id = ${APPLICATION_ID}`);
    old.pragma('journal_mode = WAL');
    migrate(old, loadMigrations().slice(0, 4));
    const oldBody = Buffer.from('<html>an old page</html>');
    old.exec(`INSERT INTO run (id, started_at, options) VALUES (1, '2025-01-01T00:00:00.000Z', '{}')`);
    old
      .prepare(
        `INSERT INTO url (id, url, state, depth, redirect_hops, tries, kind, origin) VALUES (1, 'http://old.invalid/', 'done', 0, 0, 1, 'page', 'http://old.invalid')`,
      )
      .run();
    old
      .prepare('INSERT INTO body (id, hash, size, data) VALUES (1, ?, ?, ?)')
      .run(createHash('sha256').update(oldBody).digest(), oldBody.length, oldBody);
    old.exec(`INSERT INTO response (url_id, run_id, status, content_type, headers, body_id, fetched_at, elapsed_ms, links_found, links_new)
              VALUES (1, 1, 200, 'text/html', '{"content-type":"text/html"}', 1, '2025-01-01T00:00:01.000Z', 5, 0, 0)`);
    expect(old.pragma('user_version', { simple: true })).toBe(4);
    old.close();

    const result = await runCli(['crawl', site.url, '--db', db, '-q']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(readArchive(db, 'PRAGMA user_version')).toEqual([{ user_version: loadMigrations().at(-1)!.version }]);
    const [before] = readArchive<Row>(db, "SELECT * FROM pages WHERE url = 'http://old.invalid/'");
    expect(before).toMatchObject({
      status: 200,
      http_version: null,
      reason: null,
      raw_headers: null,
      request_method: null,
      request_target: null,
      request_headers: null,
      remote_ip: null,
      started_at: null,
      sha1: null,
    });
    const fresh = readArchive<Row>(db, "SELECT * FROM pages WHERE url <> 'http://old.invalid/'");
    expect(fresh.length).toBeGreaterThan(0);
    for (const page of fresh) expect(page.sha1, page.url).toBe(warcDigest(page.body));
    for (const page of fresh) expect(page.raw_headers, page.url).not.toBeNull();
  });
});
