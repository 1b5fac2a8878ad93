import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli, spawnCli } from './support/cli.js';
import { killAll } from './support/process-tree.js';
import { html, routes, serverPool, type Route, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';
import { sleep } from './support/wait.js';

const tmp = tempDir();
const servers = serverPool();
const children: ChildProcess[] = [];

afterEach(() => {
  killAll(children);
});

afterAll(async () => {
  await servers.closeAll();
  tmp.cleanup();
});

const serve = (table: Parameters<typeof routes>[0]) => servers.serve(routes(table));

const links = (...paths: string[]) => paths.map((path) => `<a href="${path}">${path}</a>`).join(' ');
const MiB = 1024 * 1024;

interface UrlRow {
  url: string;
  state: string;
  depth: number;
  tries: number;
  error: string | null;
  kind: string;
}

/** Reads one archive through the public views (and the url table, for the error code). */
function archive(db: string, server: TestServer) {
  return {
    abs: (path: string) => abs(server, path),
    url: (path: string) =>
      readArchive<UrlRow>(db, 'SELECT url, state, depth, tries, error, kind FROM urls WHERE url = ?', abs(server, path))[0],
    page: (path: string) =>
      readArchive<{ status: number; depth: number; kind: string; size: number }>(
        db,
        'SELECT status, depth, kind, size FROM pages WHERE url = ?',
        abs(server, path),
      )[0],
    errorCode: (path: string) =>
      readArchive<{ error_code: string | null }>(db, 'SELECT error_code FROM url WHERE url = ?', abs(server, path))[0]?.error_code,
  };
}

/**
 * Polls the archive a crawl is writing until `url` has a row `ready` accepts: the row, or the last one seen
 * (undefined if none) after 20 s. For a test server to hold an answer back until the crawl got that far.
 */
async function rowOnceRecorded(db: string, url: string, ready: (row: UrlRow) => boolean): Promise<UrlRow | undefined> {
  let row: UrlRow | undefined;
  for (let i = 0; i < 1_000; i++) {
    try {
      row = readArchive<UrlRow>(db, 'SELECT url, state, depth, tries, error, kind FROM urls WHERE url = ?', url)[0];
    } catch {
      // Not created yet.
    }
    if (row && ready(row)) return row;
    await sleep(20);
  }
  return row;
}

describe('--include', () => {
  let server: TestServer;
  const db = tmp.path('include.sqlite');
  let a: ReturnType<typeof archive>;
  const INCLUDED = ['/docs/', '/docs/guide', '/blog/post-1', '/blog/post-2'];
  const LEFT_OUT = ['/shop/cart', '/about', '/pricing'];
  const REQUISITES = ['/img/logo.png', '/css/site.css', '/js/app.js', '/img/bg.png'];

  beforeAll(async () => {
    server = await serve({
      '/docs/': html(links('/docs/guide', '/blog/post-1', '/shop/cart', '/about')),
      '/docs/guide': html('<link rel="stylesheet" href="/css/site.css"><img src="/img/logo.png"><script src="/js/app.js"></script>'),
      '/blog/post-1': html(links('/blog/post-2', '/pricing')),
      '/blog/post-2': html('<p>the end</p>'),
      '/shop/cart': html('<p>cart</p>'),
      '/about': html('<p>about</p>'),
      '/pricing': html('<p>pricing</p>'),
      '/css/site.css': { headers: { 'content-type': 'text/css' }, body: 'body { background: url(/img/bg.png) }' },
      '/img/logo.png': { headers: { 'content-type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
      '/img/bg.png': { headers: { 'content-type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 1]) },
      '/js/app.js': { headers: { 'content-type': 'text/javascript' }, body: 'console.log(1)' },
    });
    a = archive(db, server);
    const result = await runCli([
      'crawl',
      a.abs('/docs/'),
      '--db',
      db,
      '-q',
      '--ignore-robots',
      '--include',
      '/docs/',
      '--include',
      '/blog/',
    ]);
    expect(result.code).toBe(0);
  });

  it('fetches pages matching either pattern', () => {
    for (const path of INCLUDED) {
      expect(server.hitCount(path), path).toBe(1);
      expect(a.url(path), path).toMatchObject({ state: 'done', kind: 'page' });
      expect(a.page(path), path).toMatchObject({ status: 200 });
    }
  });

  it('skips pages matching neither, with the reason, and never requests them', () => {
    for (const path of LEFT_OUT) {
      expect(server.hitCount(path), path).toBe(0);
      expect(a.url(path), path).toMatchObject({
        state: 'skipped',
        kind: 'page',
        error: expect.stringContaining('matches no --include pattern'),
      });
      expect(a.page(path), path).toBeUndefined();
    }
  });

  it('still fetches the requisites of included pages, which match no pattern', () => {
    for (const path of REQUISITES) {
      expect(server.hitCount(path), path).toBe(1);
      expect(a.url(path), path).toMatchObject({ state: 'done', kind: 'requisite', error: null });
      expect(a.page(path), path).toMatchObject({ status: 200 });
    }
  });
});

describe('--max-depth', () => {
  it('fetches a chain down to depth 2, requisites of depth-2 pages, redirect targets at their source depth', async () => {
    const server = await serve({
      '/': html(links('/c1')),
      '/c1': html(links('/c2', '/moved')),
      '/c2': html(`<img src="/img/deep.png"> ${links('/c3')}`),
      '/c3': html(links('/c4')),
      '/c4': html('<p>c4</p>'),
      '/img/deep.png': { headers: { 'content-type': 'image/png' }, body: Buffer.from([1, 2, 3]) },
      '/moved': { status: 301, headers: { location: '/moved-here' } },
      '/moved-here': html(links('/beyond')),
      '/beyond': html('<p>beyond</p>'),
    });
    const db = tmp.path('depth-chain.sqlite');
    const a = archive(db, server);
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots', '--max-depth', '2']);
    expect(result.code).toBe(0);

    for (const [path, depth] of [
      ['/', 0],
      ['/c1', 1],
      ['/c2', 2],
    ] as const) {
      expect(server.hitCount(path), path).toBe(1);
      expect(a.page(path), path).toMatchObject({ status: 200, depth });
    }
    expect(server.hitCount('/c3')).toBe(0);
    expect(a.url('/c3')).toMatchObject({ state: 'skipped', depth: 3, error: 'depth 3 is beyond --max-depth 2' });
    expect(server.hitCount('/c4')).toBe(0);
    expect(a.url('/c4')).toBeUndefined();

    // A requisite of a fetched depth-2 page is fetched whatever its own depth.
    expect(server.hitCount('/img/deep.png')).toBe(1);
    expect(a.url('/img/deep.png')).toMatchObject({ state: 'done', kind: 'requisite' });

    // /moved is at depth 2; its target stays at depth 2, so it is fetched; the target's links are at depth 3.
    expect(server.hitCount('/moved')).toBe(1);
    expect(server.hitCount('/moved-here')).toBe(1);
    expect(a.page('/moved')).toMatchObject({ status: 301, depth: 2 });
    expect(a.page('/moved-here')).toMatchObject({ status: 200, depth: 2 });
    expect(readArchive(db, 'SELECT kind FROM links WHERE from_url = ? AND to_url = ?', a.abs('/moved'), a.abs('/moved-here'))).toEqual([
      { kind: 'redirect' },
    ]);
    expect(server.hitCount('/beyond')).toBe(0);
    expect(a.url('/beyond')).toMatchObject({ state: 'skipped', depth: 3, error: 'depth 3 is beyond --max-depth 2' });
  });

  it('fetches a page found first at depth 3 and later at depth 2: the shortest distance counts', async () => {
    const table = routes({
      '/': html(links('/fast', '/slow')),
      '/fast': html(links('/fast2')),
      '/fast2': html(links('/target')),
      '/slow': html(links('/target')),
      '/target': html(links('/too-deep')),
      '/too-deep': html('<p>too deep</p>'),
    });
    const db = tmp.path('depth-graph.sqlite');
    // /slow answers once the crawl has recorded /target from the long path (or gives up waiting: then the test fails below).
    let targetBeforeSlow: UrlRow | undefined;
    const server = await servers.serve(async (req, res, path) => {
      if (path === '/slow') targetBeforeSlow = await rowOnceRecorded(db, abs(server, '/target'), () => true);
      return table(req, res, path);
    });
    const a = archive(db, server);
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots', '--max-depth', '2', '-c', '4']);
    expect(result.code).toBe(0);

    // The long path was walked while /slow was still answering: /target was first found at depth 3.
    expect(targetBeforeSlow).toMatchObject({ state: 'skipped', depth: 3 });

    expect(server.hitCount('/target')).toBe(1);
    expect(a.url('/target')).toMatchObject({ state: 'done', depth: 2, error: null });
    expect(a.page('/target')).toMatchObject({ status: 200, depth: 2 });
    expect(server.hitCount('/too-deep')).toBe(0);
    expect(a.url('/too-deep')).toMatchObject({ state: 'skipped', depth: 3, error: 'depth 3 is beyond --max-depth 2' });
  });

  it('fetches what a page links to when the page, already fetched, is found closer to a root by a slower path', async () => {
    // Two roots: /ra -> /ra1 -> /x (depth 2, fetched first) and the slow /rb -> /x (depth 1).
    // /y's shortest distance is 2 (via /rb, /x), so it must be fetched under --max-depth 2.
    const table = routes({
      '/ra': html(links('/ra1')),
      '/ra1': html(links('/x')),
      '/rb': html(links('/x')),
      '/x': html(links('/y')),
      '/y': html(links('/z')),
      '/z': html('<p>z</p>'),
    });
    const db = tmp.path('depth-two-roots.sqlite');
    // /rb answers once the crawl has fetched /x by the long path (or gives up waiting: then the test fails below).
    let xBeforeRb: UrlRow | undefined;
    const server = await servers.serve(async (req, res, path) => {
      if (path === '/rb') xBeforeRb = await rowOnceRecorded(db, abs(server, '/x'), (row) => row.state === 'done');
      return table(req, res, path);
    });
    const a = archive(db, server);
    const result = await runCli(['crawl', a.abs('/ra'), a.abs('/rb'), '--db', db, '-q', '--ignore-robots', '--max-depth', '2', '-c', '4']);
    expect(result.code).toBe(0);

    // /x was fetched (at depth 2) before /rb answered.
    expect(xBeforeRb).toMatchObject({ state: 'done', depth: 2 });
    expect(a.url('/x')).toMatchObject({ state: 'done', depth: 1 });
    expect(server.hitCount('/y')).toBe(1);
    expect(a.url('/y')).toMatchObject({ state: 'done', depth: 2 });
    expect(server.hitCount('/z')).toBe(0);
  });
});

describe('--max-pages', () => {
  const PAGES = Array.from({ length: 10 }, (_, i) => `/p${i + 1}`);
  let server: TestServer;
  const db = tmp.path('max-pages.sqlite');
  const pageHits = () => server.totalHits() - server.hitCount('/robots.txt');
  const eachFetchedOnce = () => {
    for (const [path, hits] of server.hits) expect(hits, path).toBe(1);
  };
  const doneRows = () =>
    readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM urls WHERE kind = 'page' AND state IN ('done', 'failed')")[0]!.n;

  beforeAll(async () => {
    const table: Record<string, Route> = { '/': html(links(...PAGES)) };
    for (const path of PAGES) table[path] = html(`<p>${path}</p>`);
    server = await serve(table); // no robots.txt route: a 404, which allows everything
  });

  it('stops after exactly 5 page requests, robots.txt not counted, and exits 0 saying so', async () => {
    const result = await runCli(['crawl', server.url, '--db', db, '--max-pages', '5', '-c', '4']);
    expect(result.code).toBe(0);
    expect(server.hitCount('/robots.txt')).toBe(1);
    expect(pageHits()).toBe(5);
    eachFetchedOnce();
    expect(doneRows()).toBe(5);
    expect(result.stderr).toContain('--max-pages');
  });

  it('goes on with resume --max-pages 8: 3 more requests, nothing fetched twice', async () => {
    const before = new Set(server.hits.keys());
    const result = await runCli(['resume', db, '--max-pages', '8', '-c', '4']);
    expect(result.code).toBe(0);
    expect(pageHits()).toBe(8);
    eachFetchedOnce();
    expect([...server.hits.keys()].filter((path) => !before.has(path))).toHaveLength(3);
    expect(doneRows()).toBe(8);
    expect(readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM urls WHERE kind = 'page' AND state = 'queued'")[0]!.n).toBe(11 - 8);
    expect(result.stderr).toContain('--max-pages');
  });
});

describe('--max-pages with page requisites', () => {
  // Each page needs a stylesheet and an image; the stylesheet needs a font. None of them is a page.
  const PAGES = Array.from({ length: 6 }, (_, i) => `/p${i + 1}`);
  const needs = (path: string) => `<link rel="stylesheet" href="${path}.css"><img src="${path}.png">`;
  let server: TestServer;
  const db = tmp.path('max-pages-requisites.sqlite');
  const pagesHit = () => ['/', ...PAGES].filter((path) => server.hitCount(path) > 0);

  beforeAll(async () => {
    const table: Record<string, Route> = { '/': html(needs('/root') + links(...PAGES)) };
    for (const path of ['/root', ...PAGES]) {
      table[path] = html(needs(path) + `<p>${path}</p>`);
      table[`${path}.css`] = { headers: { 'content-type': 'text/css' }, body: `body { background: url(${path}.woff) }` };
      table[`${path}.png`] = { headers: { 'content-type': 'image/png' }, body: 'png' };
      table[`${path}.woff`] = { headers: { 'content-type': 'font/woff' }, body: 'woff' };
    }
    server = await serve(table);
  });

  it('counts pages only, and still fetches every requisite of the pages it fetched, but no further page', async () => {
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--max-pages', '3', '-c', '1']);
    expect(result.code, result.stderr).toBe(0);
    const fetched = pagesHit();
    expect(fetched).toHaveLength(3);
    for (const page of fetched.map((path) => (path === '/' ? '/root' : path))) {
      for (const requisite of [`${page}.css`, `${page}.png`, `${page}.woff`]) expect(server.hitCount(requisite), requisite).toBe(1);
    }
    const kinds = readArchive<{ kind: string; n: number }>(
      db,
      "SELECT kind, count(*) AS n FROM urls WHERE state = 'done' GROUP BY kind ORDER BY kind",
    );
    expect(kinds).toEqual([
      { kind: 'page', n: 3 },
      { kind: 'requisite', n: 9 },
      { kind: 'robots', n: 1 },
    ]);
  });

  it('reports pages and responses apart: stats names what --max-pages counted', async () => {
    const text = await runCli(['stats', db]);
    // 3 pages; 13 responses with their 9 requisites and robots.txt.
    expect(text.stdout).toMatch(/^Time .*: 3 pages \([\d.]+\/s\), 13 responses in all \([\d.]+\/s\)$/m);
    const json = JSON.parse((await runCli(['stats', db, '--json'])).stdout) as { pagesFetched: number; fetched: number };
    expect(json).toMatchObject({ pagesFetched: 3, fetched: 13 });
  });

  it('goes on with resume --max-pages 5: 2 more pages, counting only the pages before', async () => {
    const result = await runCli(['resume', db, '-q', '--max-pages', '5', '-c', '1']);
    expect(result.code, result.stderr).toBe(0);
    expect(pagesHit()).toHaveLength(5);
    for (const [path, hits] of server.hits) expect(hits, path).toBe(1);
  });
});

describe('--max-body', () => {
  const HUGE_BYTES = 500 * MiB;
  const CHUNK = Buffer.alloc(64 * 1024, 0x61);
  let hugeBytesWritten = 0;
  let hugeClosedEarly = false;

  /** Streams up to 500 MB, waiting for 'drain' when the socket is full, until the client goes away. */
  async function streamHuge(res: ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    let gone = false;
    res.once('close', () => {
      gone = true;
    });
    const waitDrain = () =>
      new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    const chunks = HUGE_BYTES / CHUNK.length;
    for (let i = 0; i < chunks && !gone; i++) {
      hugeBytesWritten += CHUNK.length;
      if (!res.write(CHUNK)) await waitDrain();
    }
    if (gone) hugeClosedEarly = true;
    else res.end();
  }

  let server: TestServer;

  beforeAll(async () => {
    const table = routes({
      '/': html(links('/huge', '/after-1')),
      '/after-1': html(links('/after-2')),
      '/after-2': html('<p>after</p>'),
    });
    server = await servers.serve((req, res, path) => (path === '/huge' ? streamHuge(res) : table(req, res, path)));
  });

  it('fails a 500 MB streamed body as body_too_large, hanging up early and in little memory, and goes on', async () => {
    const db = tmp.path('max-body.sqlite');
    const a = archive(db, server);
    const started = Date.now();
    const child = spawnCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots', '-c', '1', '--max-body', String(MiB)]);
    children.push(child);
    let exited = false;
    const run = child.exited.then((result) => {
      exited = true;
      return result;
    });

    // Peak memory of the child: VmHWM (its high-water mark) and VmRSS, sampled every 50 ms while it runs.
    let peakKb = 0;
    let samples = 0;
    const field = (status: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    const deadline = Date.now() + 30_000;
    for (let i = 0; i < 600 && !exited && Date.now() < deadline; i++) {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peakKb = Math.max(peakKb, field(status, 'VmHWM'), field(status, 'VmRSS'));
        samples += 1;
      } catch {
        break; // the process is gone
      }
      await sleep(50);
    }
    const result = await run;
    const elapsedMs = Date.now() - started;
    console.log(
      `--max-body crawl: peak RSS ${(peakKb / 1024).toFixed(1)} MB over ${samples} samples, server wrote ${(hugeBytesWritten / MiB).toFixed(1)} MiB, ${elapsedMs} ms`,
    );

    expect(result.code, result.stderr).toBe(0);
    expect(server.hitCount('/huge')).toBe(1);
    expect(a.url('/huge')).toMatchObject({ state: 'failed', error: expect.stringContaining('--max-body 1048576') });
    expect(a.errorCode('/huge')).toBe('body_too_large');
    expect(a.page('/huge')).toBeUndefined();
    // The crawl went on after it.
    expect(a.page('/after-1')).toMatchObject({ status: 200 });
    expect(a.page('/after-2')).toMatchObject({ status: 200 });
    // The client hung up early: the server stopped after a few MB (which is also what keeps this crawl short).
    expect(hugeClosedEarly).toBe(true);
    expect(hugeBytesWritten).toBeLessThan(100 * 1000 * 1000);
    expect(samples).toBeGreaterThan(0);
    expect(peakKb * 1024).toBeLessThan(300 * 1000 * 1000);
  });
});

describe('--max-body against a gzip bomb', () => {
  let server: TestServer;
  let bomb: Buffer;
  let inflatedBytes = 0;

  beforeAll(async () => {
    // About 1 MB of gzip that inflates to about 1 GB of zeros (Z_RLE makes zeros fast to deflate).
    const gzip = zlib.createGzip({ level: 9, strategy: zlib.constants.Z_RLE });
    const parts: Buffer[] = [];
    let compressed = 0;
    gzip.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      compressed += chunk.length;
    });
    const ended = new Promise((resolve) => gzip.on('end', resolve));
    const zeros = Buffer.alloc(MiB);
    for (let i = 0; i < 2048 && compressed < 1_000_000; i++) {
      inflatedBytes += zeros.length;
      if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
    }
    gzip.end();
    await ended;
    bomb = Buffer.concat(parts);

    server = await serve({
      '/': html(links('/bomb', '/fine')),
      '/bomb': { headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' }, body: bomb },
      '/fine': { headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' }, body: zlib.gzipSync('<p>fine</p>') },
    });
  });

  it('fails a body that inflates past --max-body as body_too_large', async () => {
    expect(bomb.length).toBeGreaterThan(500_000);
    expect(bomb.length).toBeLessThan(10 * MiB); // the compressed bytes alone are within the limit
    expect(inflatedBytes).toBeGreaterThan(900 * MiB);

    const db = tmp.path('gzip-bomb.sqlite');
    const a = archive(db, server);
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots', '--max-body', String(10 * MiB)]);
    expect(result.code).toBe(0);
    expect(server.hitCount('/bomb')).toBe(1);
    expect(a.url('/bomb')).toMatchObject({ state: 'failed', error: expect.stringContaining('--max-body 10485760') });
    expect(a.errorCode('/bomb')).toBe('body_too_large');
    expect(a.page('/bomb')).toBeUndefined();
    expect(a.page('/fine')).toMatchObject({ status: 200, size: '<p>fine</p>'.length });
  });
});
