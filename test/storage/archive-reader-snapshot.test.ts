import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type ArchiveReader } from '../../src/storage/reader/archive-reader.js';
import { tempDir, PAGES_VIEW_OF_SCHEMA_4 } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';

// What an export reads beyond the pages: one snapshot across several reads,
// the bodies stored more than once, the links with each page, the URLs that
// failed without a response, the crawl's definition, and the wire columns,
// tolerating archives that lack them.

const tmp = tempDir();
const db = tmp.path('site.sqlite');
let server: TestServer;
const readers: ArchiveReader[] = [];
const open = (path: string) => {
  const reader = openArchive(path);
  readers.push(reader);
  return reader;
};

beforeAll(async () => {
  server = await startServer(
    routes({
      '/': html('<a href="/b">b</a> <a href="/a">a</a> <a href="/same-1">1</a> <a href="/same-2">2</a> <a href="/slow">slow</a>'),
      '/a': html('a'),
      '/b': html('b'),
      '/same-1': { headers: { 'content-type': 'text/plain' }, body: 'same' },
      '/same-2': { headers: { 'content-type': 'text/plain' }, body: 'same' },
      '/slow': { ...html('too late'), delayMs: 3_000 },
    }),
  );
  // /slow fails on --timeout; every other answer of this in-process server comes far within it, even on a loaded machine.
  const crawl = await runCli(['crawl', server.url, '--db', db, '-q', '--timeout', '1000', '--max-tries', '1', '--retry-delay', '1']);
  expect(crawl.code, crawl.stderr).toBe(0);
});

afterAll(async () => {
  for (const reader of readers.splice(0)) reader.close();
  await server.close();
  tmp.cleanup();
});

const abs = (path: string) => new URL(path, server.url).href;

describe('archive reader: what an export reads', () => {
  it('sees one snapshot across reads and awaits inside snapshot(), whatever is written meanwhile', async () => {
    const path = tmp.path('snapshot.sqlite');
    copyFileSync(db, path);
    const writer = new Database(path);
    writer.pragma('journal_mode = WAL');
    const reader = open(path);
    const count = () => [...reader.pages()].length;
    const before = count();
    const inside = await reader.snapshot(async () => {
      const first = count();
      writer.prepare('DELETE FROM response WHERE url_id = (SELECT id FROM url WHERE url = ?)').run(abs('/a'));
      await new Promise((resolve) => setTimeout(resolve, 5));
      return [first, count(), reader.wireRecorded().responses];
    });
    writer.close();
    expect(inside).toEqual([before, before, before]);
    expect(count()).toBe(before - 1);
  });

  it('reads each page with its outlinks when asked, in order of target', () => {
    const reader = open(db);
    const root = [...reader.pages({ urlPrefix: abs('/') }, { outlinks: true })].find((page) => page.url === abs('/'))!;
    expect(root.outlinks).toEqual([
      { url: abs('/a'), kind: 'link' },
      { url: abs('/b'), kind: 'link' },
      { url: abs('/same-1'), kind: 'link' },
      { url: abs('/same-2'), kind: 'link' },
      { url: abs('/slow'), kind: 'link' },
    ]);
    expect([...reader.pages()][0]!.outlinks).toBeUndefined();
  });

  it('names the bodies stored more than once, the URLs that failed without a response, and the crawl', () => {
    const reader = open(db);
    const same = reader.page(abs('/same-1'))!;
    expect(reader.sharedBodies()).toEqual(new Set([same.sha256]));
    expect([...reader.urlsWithoutResponse('failed')].map((url) => url.url)).toEqual([abs('/slow')]);
    expect(reader.crawlDefinition()).toMatchObject({ roots: [server.url], options: expect.objectContaining({ maxTries: 1 }) });
  });

  it('reads the wire columns, as NULL from an archive whose pages view lacks them', () => {
    const page = open(db).page(abs('/a'))!;
    for (const key of [
      'httpVersion',
      'reason',
      'rawHeaders',
      'requestMethod',
      'requestTarget',
      'requestHeaders',
      'remoteIp',
      'startedAt',
      'sha1',
    ] as const) {
      expect(page).toHaveProperty(key);
    }
    const older = tmp.path('older.sqlite');
    copyFileSync(db, older);
    const handle = new Database(older);
    handle.exec(PAGES_VIEW_OF_SCHEMA_4);
    handle.close();
    const reader = open(older);
    expect(reader.page(abs('/a'))).toMatchObject({ body: Buffer.from(page.body), rawHeaders: null, sha1: null, remoteIp: null });
    expect([...reader.pages()]).toHaveLength([...open(db).pages()].length);
    expect(reader.wireRecorded()).toEqual({ responses: [...reader.pages()].length, rawHeaders: 0, requestHeaders: 0 });
  });
});
