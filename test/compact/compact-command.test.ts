import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrity, readArchive, tempDir } from '../support/archive.js';
import { runCli, spawnCli } from '../support/cli.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';
import { abs } from '../support/urls.js';
import { readWarc } from '../support/warc-read.js';

// `crawlite compact` turns a plain archive compact and `--undo` turns it back: the same pages, the same
// bytes, the same export; and a compacted archive keeps compressing what later runs add.
let server: TestServer;
const tmp = tempDir();
const original = tmp.path('original.sqlite');
const words = (seed: string) => Array.from({ length: 300 }, (_, i) => `${seed} ${i % 29}`).join(' ');
let extra = false;

beforeAll(async () => {
  server = await startServer(
    routes({
      '/': () => html(`<a href="/a">a</a><a href="/b">b</a>${extra ? '<a href="/c">c</a>' : ''}<p>${words('home')}</p>`),
      '/a': html(`<p>${words('alpha')}</p>`),
      '/b': html(`<p>${words('beta')}</p>`),
      '/c': html(`<p>${words('gamma')}</p>`),
    }),
  );
  const crawled = await runCli(['crawl', server.url, '--db', original, '-q']);
  expect(crawled.code, crawled.stderr).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const rows = (db: string) =>
  readArchive<{ url: string; size: number; sha256: string; sha1: string }>(db, 'SELECT url, size, sha256, sha1 FROM pages ORDER BY url');
const packed = (db: string) => readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM body WHERE length(data) < size')[0]!.n;
const rawBodies = (db: string) =>
  readArchive<{ url: string; body: Buffer }>(db, 'SELECT url, body FROM pages ORDER BY url').map((row) => [
    row.url,
    row.body.toString('hex'),
  ]);

async function payloads(db: string): Promise<string[][]> {
  const warc = `${db}.warc.gz`;
  const exported = await runCli(['export', db, '--warc', warc, '-q', '--force']);
  expect(exported.code, exported.stderr).toBe(0);
  return (await readWarc(warc))
    .filter((record) => record.type === 'response')
    .map((record) => [record.field('WARC-Target-URI')!, record.payload!.toString('hex')])
    .sort((x, y) => x[0]!.localeCompare(y[0]!));
}

describe('crawlite compact', () => {
  it('compresses the bodies of a plain archive, keeps every page, hash and export payload, and --undo gives the raw bytes back', async () => {
    const db = tmp.path('round-trip.sqlite');
    copyFileSync(original, db);
    expect(packed(db)).toBe(0);
    const done = await runCli(['compact', db]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^compressed 3 bodies in [\d.]+ s; /);
    expect(integrity(db)).toBe('ok');
    expect(packed(db)).toBe(3);
    expect(rows(db)).toEqual(rows(original));
    expect(await payloads(db)).toEqual(await payloads(original));
    expect(readArchive(db, "SELECT value FROM meta WHERE key = 'compact'")).toEqual([{ value: 'true' }]);

    const undone = await runCli(['compact', db, '--undo']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stdout).toMatch(/^uncompressed 3 bodies/);
    expect(packed(db)).toBe(0);
    expect(rawBodies(db)).toEqual(rawBodies(original));
    expect(readArchive(db, "SELECT value FROM meta WHERE key = 'compact'")).toEqual([]);
    expect(existsSync(`${db}-compacting`)).toBe(false);
  });

  it('compresses the page text too, and search gives the same hits and snippets before, after and undone', async () => {
    const db = tmp.path('text.sqlite');
    copyFileSync(original, db);
    const search = async () => {
      const found = await runCli(['search', db, 'alpha', '-f', 'ndjson']);
      expect(found.code, found.stderr).toBe(0);
      return found.stdout;
    };
    const before = await search();
    expect(before).toContain('/a');
    const textTables = () =>
      readArchive<{ name: string; type: string }>(
        db,
        "SELECT name, type FROM sqlite_schema WHERE name IN ('page_text', 'page_text_zlib') ORDER BY name",
      );
    expect(textTables()).toEqual([{ name: 'page_text', type: 'table' }]);
    expect((await runCli(['compact', db, '-q'])).code).toBe(0);
    expect(textTables()).toEqual([
      { name: 'page_text', type: 'view' },
      { name: 'page_text_zlib', type: 'table' },
    ]);
    expect(readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM page_text_zlib WHERE length(body) < body_size')[0]!.n).toBe(3);
    expect(await search()).toBe(before);
    expect((await runCli(['compact', db, '--undo', '-q'])).code).toBe(0);
    expect(textTables()).toEqual([{ name: 'page_text', type: 'table' }]);
    expect(await search()).toBe(before);
  });

  it('packs again at its own level what a --compact crawl stored at the faster one, in 2 KB pages; --undo goes back to 4 KB', async () => {
    // Words drawn from a small vocabulary by a fixed LCG: text where zlib's level 6 finds more than level 1.
    let seed = 7;
    const vocabulary = ['archive', 'crawl', 'frontier', 'resume', 'replay', 'index', 'capture', 'payload', 'record', 'digest'];
    const prose = () =>
      Array.from({ length: 4000 }, () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return vocabulary[seed % vocabulary.length];
      }).join(' ');
    const pages: Record<string, ReturnType<typeof html>> = { '/': html('<a href="/x">x</a><a href="/y">y</a>') };
    pages['/x'] = html(`<p>${prose()}</p>`);
    pages['/y'] = html(`<p>${prose()}</p>`);
    const site = await startServer(routes(pages));
    try {
      const db = tmp.path('compact-crawl.sqlite');
      const crawled = await runCli(['crawl', site.url, '--db', db, '--compact', '-q']);
      expect(crawled.code, crawled.stderr).toBe(0);
      const stored = () => readArchive<{ n: number }>(db, 'SELECT sum(length(data)) AS n FROM body')[0]!.n;
      const pageSize = () => readArchive<{ page_size: number }>(db, 'PRAGMA page_size')[0]!.page_size;
      const bodies = rows(db);
      const crawledBytes = stored();
      expect(packed(db)).toBeGreaterThanOrEqual(2);
      expect(pageSize()).toBe(4096);
      const done = await runCli(['compact', db]);
      expect(done.code, done.stderr).toBe(0);
      expect(stored()).toBeLessThan(crawledBytes);
      expect(rows(db)).toEqual(bodies);
      expect(pageSize()).toBe(2048);
      expect(integrity(db)).toBe('ok');
      expect((await runCli(['compact', db, '--undo', '-q'])).code).toBe(0);
      expect(pageSize()).toBe(4096);
      expect(packed(db)).toBe(0);
      expect(rows(db)).toEqual(bodies);
      // The raw bytes are the ones hashed when crawled.
      for (const row of readArchive<{ body: Buffer; sha256: string }>(db, 'SELECT body, sha256 FROM pages')) {
        expect(createHash('sha256').update(row.body).digest('hex')).toBe(row.sha256);
      }
    } finally {
      await site.close();
    }
  });

  it('a compacted archive is refused by merge with what to do', async () => {
    const db = tmp.path('merge-input.sqlite');
    copyFileSync(original, db);
    expect((await runCli(['compact', db, '-q'])).code).toBe(0);
    const merged = await runCli(['merge', db, '--db', tmp.path('merged.sqlite')]);
    expect(merged.code).toBe(1);
    expect(merged.stderr).toMatch(/its page text is compact \(crawlite compact\); run `crawlite compact --undo` on a copy of it first/);
  });

  it('leaves a compacted archive compact for what a re-crawl adds', async () => {
    const db = tmp.path('recrawled.sqlite');
    copyFileSync(original, db);
    expect((await runCli(['compact', db, '-q'])).code).toBe(0);
    extra = true;
    try {
      const again = await runCli(['recrawl', db, '-q']);
      expect(again.code, again.stderr).toBe(0);
    } finally {
      extra = false;
    }
    // The new page and the home page's new body, both written by the re-crawl.
    for (const path of ['/c', '/']) {
      const [row] = readArchive<{ length: number; size: number }>(
        db,
        'SELECT length(body) AS length, size FROM pages WHERE url = ?',
        abs(server, path),
      );
      expect(row!.length, path).toBeLessThan(row!.size);
    }
  });

  it('removes the copy an interrupted run left, and says so', async () => {
    const db = tmp.path('leftover.sqlite');
    copyFileSync(original, db);
    writeFileSync(`${db}-compacting`, 'half a copy');
    const done = await runCli(['compact', db]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain('removed the copy an interrupted compact');
    expect(existsSync(`${db}-compacting`)).toBe(false);
    expect(packed(db)).toBe(3);
  });

  it('is refused, with one line, while a crawl holds the archive', async () => {
    const db = tmp.path('busy.sqlite');
    copyFileSync(original, db);
    const slow = await startServer(routes({ '/': html('<a href="/x">x</a>'), '/x': html('x') }, 3000));
    const crawl = spawnCli(['crawl', slow.url, '--db', db, '-q']);
    try {
      // Wait for the crawl to take the lock.
      for (let i = 0; i < 200 && !existsSync(`${db}-lock`); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(existsSync(`${db}-lock`)).toBe(true);
      const refused = await runCli(['compact', db]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain('another crawl');
    } finally {
      crawl.kill('SIGKILL');
      await crawl.exited;
      await slow.close();
    }
  });
});
