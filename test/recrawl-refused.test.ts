import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WARCRecord, WARCSerializer } from 'warcio';
import { readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { linkedPage, pagePath } from './support/linked-site.js';
import { expectOneLine } from './support/one-line-error.js';
import { startServer, type TestServer } from './support/test-server.js';

// recrawl starts the next crawl of a finished archive only: an unfinished one is resumed first, and an
// archive with no crawl in it (WARCs imported) has nothing to repeat.
const N = 20;
let server: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  server = await startServer((_req, res, path) => {
    const match = /^\/p\/(\d+)$/.exec(path);
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(`<a href="${pagePath(0)}">start</a>`);
    if (match && Number(match[1]) < N)
      return res.writeHead(200, { 'content-type': 'text/html' }).end(linkedPage(Number(match[1]), N, pagePath));
    return res.writeHead(404).end();
  });
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

it('refuses an unfinished crawl in one line, telling to resume first, and changes nothing', async () => {
  const db = tmp.path('unfinished.sqlite');
  const crawled = await execCli(['crawl', server.url, '--db', db, '--max-pages', '3', '-q']);
  expect(crawled.code, crawled.stderr).toBe(0);
  const before = readArchive(db, 'SELECT url, state, crawl FROM url ORDER BY id');
  const hits = server.totalHits();

  const refused = await execCli(['recrawl', db]);
  expectOneLine(refused, /last crawl is not finished \(\d+ URLs? left to fetch\); run crawlite resume .*unfinished\.sqlite first/);
  expect(server.totalHits()).toBe(hits);
  expect(readArchive(db, 'SELECT url, state, crawl FROM url ORDER BY id')).toEqual(before);
  expect(readArchive(db, 'SELECT crawl FROM run')).toEqual([{ crawl: 1 }]);
});

it('refuses an archive that holds no crawl, only imported WARCs, in one line', async () => {
  const record = WARCRecord.create(
    { url: 'http://site.example/', date: '2024-01-02T03:04:05Z', type: 'response', httpHeaders: { 'Content-Type': 'text/html' } },
    [new TextEncoder().encode('<p>imported</p>')],
  );
  const warc = tmp.path('site.warc.gz');
  writeFileSync(warc, await WARCSerializer.serialize(record, { gzip: true }));
  const db = tmp.path('imported.sqlite');
  const imported = await execCli(['import', warc, '--db', db]);
  expect(imported.code, imported.stderr).toBe(0);

  const refused = await execCli(['recrawl', db]);
  expectOneLine(refused, /imported\.sqlite holds no crawl to repeat \(no roots stored\); start one with crawlite crawl <url>/);
  expect(readArchive(db, 'SELECT count(*) AS n FROM run')).toEqual([{ n: 1 }]);
});
