import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type ArchivedPage, type ArchiveReader } from '../../src/storage/reader/archive-reader.js';
import { tempDir } from '../support/archive.js';
import { runCli, spawnCli } from '../support/cli.js';
import { emptyArchive } from '../support/query-archive.js';
import { html, routes, startServer, type Route, type TestServer } from '../support/test-server.js';
import { startGatedSite } from '../support/gated-site.js';
import { waitFor } from '../support/wait.js';

// The archive reader gives back what a real crawl stored, through the stable
// views: pages with the bytes the server sent, links, URLs, the report; it
// streams, and it reads while a crawl is writing.

const tmp = tempDir();
const servers: TestServer[] = [];
const readers: ArchiveReader[] = [];

afterAll(async () => {
  for (const reader of readers.splice(0)) reader.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  tmp.cleanup();
});

async function serve(table: Record<string, Route>): Promise<TestServer> {
  const server = await startServer(routes(table));
  servers.push(server);
  return server;
}

function open(path: string): ArchiveReader {
  const reader = openArchive(path);
  readers.push(reader);
  return reader;
}

async function crawl(server: TestServer, db: string, ...flags: string[]): Promise<void> {
  const result = await runCli(['crawl', server.url, '--db', db, '-q', ...flags]);
  expect(result.code, result.stderr).toBe(0);
}

describe('a small site, read back', () => {
  const binary = randomBytes(3000);
  const png = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), randomBytes(500)]);
  const site: Record<string, Route> = {
    '/': html(
      '<a href="/a.html">a</a> <a href="/missing">gone</a> <a href="/old">old</a> <a href="/data.bin">data</a> <a href="/private" rel="nofollow">private</a> <img src="/pic.png">',
      'home',
    ),
    '/a.html': {
      headers: { 'content-type': 'text/html; charset=utf-8', 'x-served-by': 'test' },
      body: '<title>A</title><a href="/b.html">b</a>',
    },
    '/b.html': html('b', 'B'),
    '/missing': { status: 404, body: 'not here' },
    '/old': { status: 301, headers: { location: '/a.html' } },
    '/data.bin': { headers: { 'content-type': 'application/octet-stream' }, body: binary },
    '/pic.png': { headers: { 'content-type': 'image/png' }, body: png },
  };
  let server: TestServer;
  let reader: ArchiveReader;
  const db = tmp.path('site.sqlite');
  const abs = (path: string) => new URL(path, server.url).href;
  const sent = (path: string) => {
    const body = site[path]?.body ?? '';
    return typeof body === 'string' ? Buffer.from(body) : body;
  };

  beforeAll(async () => {
    server = await serve(site);
    await crawl(server, db);
    reader = open(db);
  });

  it('reads every stored response with the body the server sent, in URL order', () => {
    const pages = [...reader.pages()];
    const urls = pages.map((page) => page.url);
    expect(urls).toEqual([...urls].sort());
    const byUrl = new Map(pages.map((page) => [page.url, page]));
    for (const path of ['/', '/a.html', '/b.html', '/missing', '/old', '/data.bin', '/pic.png']) {
      const page = byUrl.get(abs(path));
      expect(page, path).toBeDefined();
      expect(Buffer.isBuffer(page!.body)).toBe(true);
      expect(page!.body.equals(sent(path)), path).toBe(true);
      expect(page!.size).toBe(sent(path).length);
    }
    expect(byUrl.get(abs('/robots.txt'))).toMatchObject({ status: 404, kind: 'robots' });
  });

  it('gives each page its fields typed: headers parsed, status, content type, time, kind', () => {
    const page = reader.page(abs('/a.html'));
    expect(page).toMatchObject<Partial<ArchivedPage>>({
      url: abs('/a.html'),
      fetchUrl: abs('/a.html'),
      status: 200,
      contentType: 'text/html; charset=utf-8',
      kind: 'page',
      depth: 1,
      title: 'A',
      location: null,
      linksDropped: 0,
    });
    expect(page!.headers).toMatchObject({ 'x-served-by': 'test', 'content-type': 'text/html; charset=utf-8' });
    expect(page!.fetchedAt).toBe(new Date(page!.fetchedAt).toISOString());
    expect(page!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(reader.page(abs('/old'))).toMatchObject({ status: 301, location: '/a.html' });
    expect(reader.page(abs('/pic.png'))).toMatchObject({ kind: 'requisite', contentType: 'image/png' });
    expect(reader.page(abs('/never-seen'))).toBeUndefined();
  });

  it('filters pages by status, status range, kind and URL prefix', () => {
    const urls = (pages: Iterable<ArchivedPage>) => [...pages].map((page) => page.url);
    expect(urls(reader.pages({ status: 404 }))).toEqual([abs('/missing'), abs('/robots.txt')]);
    expect(urls(reader.pages({ status: 404, kind: 'page' }))).toEqual([abs('/missing')]);
    expect(urls(reader.pages({ status: { min: 300, max: 399 } }))).toEqual([abs('/old')]);
    expect(urls(reader.pages({ status: { min: 400 } }))).toEqual([abs('/missing'), abs('/robots.txt')]);
    expect(urls(reader.pages({ kind: 'requisite' }))).toEqual([abs('/pic.png')]);
    expect(urls(reader.pages({ urlPrefix: abs('/a') }))).toEqual([abs('/a.html')]);
    expect(urls(reader.pages({ urlPrefix: abs('/'), status: 200, kind: 'page' }))).toEqual(
      ['/', '/a.html', '/b.html', '/data.bin'].map(abs).sort(),
    );
    expect(urls(reader.pages({ urlPrefix: 'https://elsewhere.example/' }))).toEqual([]);
  });

  it('reads the links of one page, or all of them, with their kind and nofollow', () => {
    expect([...reader.links(abs('/'))]).toEqual(
      [
        { fromUrl: abs('/'), toUrl: abs('/a.html'), kind: 'link', nofollow: false },
        { fromUrl: abs('/'), toUrl: abs('/data.bin'), kind: 'link', nofollow: false },
        { fromUrl: abs('/'), toUrl: abs('/missing'), kind: 'link', nofollow: false },
        { fromUrl: abs('/'), toUrl: abs('/old'), kind: 'link', nofollow: false },
        { fromUrl: abs('/'), toUrl: abs('/pic.png'), kind: 'requisite', nofollow: false },
        { fromUrl: abs('/'), toUrl: abs('/private'), kind: 'link', nofollow: true },
      ].sort((a, b) => (a.toUrl < b.toUrl ? -1 : 1)),
    );
    const all = [...reader.links()];
    expect(all).toContainEqual({ fromUrl: abs('/old'), toUrl: abs('/a.html'), kind: 'redirect', nofollow: false });
    expect(all).toContainEqual({ fromUrl: abs('/a.html'), toUrl: abs('/b.html'), kind: 'link', nofollow: false });
    expect([...reader.links(abs('/never-seen'))]).toEqual([]);
  });

  it('reads every URL seen, or those in one state', () => {
    const urls = [...reader.urls()];
    expect(urls.map((url) => url.url)).toEqual(urls.map((url) => url.url).sort());
    expect(urls).toContainEqual({ url: abs('/'), state: 'done', kind: 'page', depth: 0, tries: 1, error: null });
    expect([...reader.urls('skipped')]).toEqual([
      { url: abs('/private'), state: 'skipped', kind: 'page', depth: 1, tries: 0, error: 'linked with nofollow' },
    ]);
    expect([...reader.urls('done')].map((url) => url.url)).toContain(abs('/missing'));
    expect([...reader.urls('queued')]).toEqual([]);
  });

  it('reports what stats prints, from the same archive', async () => {
    const report = reader.report();
    expect(report.urls.total).toBe([...reader.urls()].length);
    expect(report.pages).toBe([...reader.pages()].length);
    expect(report.byStatus).toContainEqual({ status: 404, count: 2 });
    expect(report.runs).toBe(1);
    const stats = await runCli(['stats', db, '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ urls: report.urls, byStatus: report.byStatus, pages: report.pages });
  });

  it('runs one read-only statement with parameters, and refuses one that writes', () => {
    const query = reader.query('select url, status from pages where status >= ? order by url', [400]);
    expect(query.columns).toEqual(['url', 'status']);
    expect([...query.rows]).toEqual([
      [abs('/missing'), 404],
      [abs('/robots.txt'), 404],
    ]);
    expect(() => reader.query('delete from url')).toThrow(expect.objectContaining({ code: 'QUERY_REFUSED' }));
    expect(() => reader.query("attach 'x.sqlite' as x")).toThrow(expect.objectContaining({ code: 'QUERY_REFUSED' }));
  });
});

describe('opening', () => {
  it('refuses a missing file, a file that is not SQLite, and a SQLite file of another program, writing nothing', () => {
    expect(() => openArchive(tmp.path('none.sqlite'))).toThrow(expect.objectContaining({ code: 'ARCHIVE_PATH' }));
    const text = tmp.path('notes.txt');
    writeFileSync(text, 'x'.repeat(200));
    expect(() => openArchive(text)).toThrow(expect.objectContaining({ code: 'NOT_AN_ARCHIVE' }));
    const other = tmp.path('other.sqlite');
    const db = new Database(other);
    db.exec('create table t (x)');
    db.close();
    const before = readFileSync(other);
    expect(() => openArchive(other)).toThrow(expect.objectContaining({ code: 'NOT_AN_ARCHIVE' }));
    expect(readFileSync(other).equals(before)).toBe(true);
  });

  it('opens an archive no crawl has written to yet, and closes twice without complaint', () => {
    const reader = openArchive(emptyArchive(tmp.path('empty.sqlite')));
    expect([...reader.pages()]).toEqual([]);
    expect(reader.report().urls.total).toBe(0);
    reader.close();
    expect(() => reader.close()).not.toThrow();
  });
});

describe('streaming', () => {
  const LINKS = 3000;
  const db = tmp.path('hub.sqlite');
  let reader: ArchiveReader;

  beforeAll(async () => {
    const hub = Array.from({ length: LINKS }, (_, i) => `<a href="/n/${i}">${i}</a>`).join('\n');
    const server = await serve({ '/': html(hub) });
    // Depth 0: the targets are recorded (skipped), not fetched.
    await crawl(server, db, '--max-depth', '0');
    reader = open(db);
  });

  it('iterates thousands of rows one at a time', () => {
    let links = 0;
    for (const link of reader.links()) links += link.kind === 'link' ? 1 : 0;
    expect(links).toBe(LINKS);
    let urls = 0;
    for (const url of reader.urls('skipped')) urls += url.kind === 'page' ? 1 : 0;
    expect(urls).toBe(LINKS);
  });

  it('ends the read when the loop breaks early, so the archive closes', () => {
    const reader = openArchive(db);
    let seen = 0;
    for (const link of reader.links()) {
      expect(link.toUrl).toContain('/n/');
      if (++seen === 10) break;
    }
    for (const url of reader.urls()) {
      if (url.state === 'skipped') break;
    }
    // better-sqlite3 refuses to close a connection while a statement is still reading.
    expect(() => reader.close()).not.toThrow();
  });

  it('close() ends a read still open, which then yields nothing more', () => {
    const reader = openArchive(db);
    const links = reader.links();
    const rows = reader.query('select url from urls').rows[Symbol.iterator]();
    expect(links.next().done).toBe(false);
    expect(rows.next().done).toBe(false);
    expect(() => reader.close()).not.toThrow();
    expect(links.next().done).toBe(true);
    expect(rows.next().done).toBe(true);
  });

  it('keeps memory flat over bodies far larger than it holds at once', async () => {
    // 150 pages of 1 MiB each, sent gzipped (a few KiB) and stored once: reading them all yields 150 MiB of bodies.
    const PAGES = 150;
    const body = gzipSync(Buffer.alloc(1024 * 1024, 'crawlite '));
    const table: Record<string, Route> = { '/': html(Array.from({ length: PAGES }, (_, i) => `<a href="/big/${i}">${i}</a>`).join('')) };
    for (let i = 0; i < PAGES; i++)
      table[`/big/${i}`] = { headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' }, body };
    const server = await serve(table);
    const path = tmp.path('big.sqlite');
    await crawl(server, path);
    const big = open(path);
    const base = process.memoryUsage().arrayBuffers;
    let peak = 0;
    let bytes = 0;
    for (const page of big.pages({ urlPrefix: new URL('/big/', server.url).href })) {
      bytes += page.body.length;
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - base);
    }
    expect(bytes).toBe(PAGES * 1024 * 1024);
    expect(peak).toBeLessThan(bytes / 2);
  });
});

describe('reading while a crawl writes', () => {
  it('reads consistent pages from an archive a running crawl holds, and the crawl ends cleanly', async () => {
    const PAGES = 30;
    // Pages from /p/10 on wait for the gate, so the crawl is surely still running while the test reads.
    const { server, openGate } = await startGatedSite({ pages: PAGES, gatedFrom: 10, delayMs: 10, gateLimitMs: 60_000 });
    servers.push(server);
    const bodyOf = (url: string) => {
      const i = new URL(url).pathname.slice('/p/'.length);
      return html(`<p>page ${i}</p>`, `page ${i}`).body;
    };
    const path = tmp.path('live.sqlite');
    const child = spawnCli(['crawl', server.url, '--db', path, '-q', '--concurrency', '1']);
    try {
      let reader: ArchiveReader | undefined;
      await waitFor(
        'three pages in the archive',
        () => {
          try {
            reader ??= openArchive(path);
            return [...reader.pages({ status: 200 })].length >= 3;
          } catch {
            return false;
          }
        },
        60_000,
      );
      expect(child.exitCode).toBeNull();
      const during = [...reader!.pages({ urlPrefix: new URL('/p/', server.url).href })];
      expect(during.length).toBeGreaterThan(0);
      expect(during.length).toBeLessThan(PAGES);
      for (const page of during) expect(page.body.toString()).toBe(bodyOf(page.url));
      openGate();
      const result = await child.exited;
      expect(result.code, result.stderr).toBe(0);
      expect([...reader!.pages({ urlPrefix: new URL('/p/', server.url).href })]).toHaveLength(PAGES);
      reader!.close();
    } finally {
      openGate();
      child.kill('SIGKILL');
    }
  });
});
