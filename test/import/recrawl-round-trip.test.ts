import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { ChangingSite, type Served } from '../support/changing-site.js';
import { startServer, type TestServer } from '../support/test-server.js';
import { readZip } from '../support/zip-read.js';

// A site crawled, changed and re-crawled, exported and imported into a new archive: the import holds the
// same crawls (in order, with their times), each capture in its crawl, and the 304s of the re-crawl
// (written as revisits) as revalidations of what they confirmed, so `diff` on the import says what it
// says on the original.

const page = (title: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</body></html>`;

function answer(path: string, version: number): Served | undefined {
  switch (path) {
    case '/':
      return { body: page('index', ['/same', '/changed', '/removed', '/plain']) };
    case '/same':
      return { body: page('the same, with an etag'), etag: '"same-1"' };
    case '/changed':
      return version === 1 ? { body: page('first', []), etag: '"c-1"' } : { body: page('second', ['/new']), etag: '"c-2"' };
    case '/removed':
      return version === 1 ? { body: page('removed soon') } : undefined;
    case '/plain':
      return { body: page('the same, without validators') };
    case '/new':
      return { body: page('new in the second version') };
    default:
      return undefined;
  }
}

const site = new ChangingSite(answer);
let server: TestServer;
const tmp = tempDir();
const original = tmp.path('original.sqlite');

beforeAll(async () => {
  server = await startServer(site.handle);
  const crawled = await execCli(['crawl', server.url, '--db', original, '-q']);
  expect(crawled.code, crawled.stderr).toBe(0);
  site.version = 2;
  const recrawled = await execCli(['recrawl', original, '-q']);
  expect(recrawled.code, recrawled.stderr).toBe(0);
  // The re-crawl revalidated what did not change: the round trip has 304s to keep.
  expect(readArchive(original, 'SELECT count(*) AS n FROM captures WHERE revalidated = 1')).toEqual([{ n: 1 }]);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const CAPTURES = `SELECT url, crawl, fetched_at, status, sha256, revalidated, latest FROM captures
  WHERE coalesce(request_method, 'GET') = 'GET' ORDER BY url, fetched_at`;
const CRAWLS = 'SELECT crawl, min(started_at) AS started_at FROM run GROUP BY crawl ORDER BY crawl';

async function exportAndImport(format: '--warc' | '--wacz', name: string): Promise<string> {
  const file = tmp.path(`${name}${format === '--warc' ? '.warc.gz' : '.wacz'}`);
  const exported = await execCli(['export', original, format, file, '-q']);
  expect(exported.code, exported.stderr).toBe(0);
  return file;
}

async function diffRows(db: string): Promise<unknown[]> {
  const run = await execCli(['diff', db, '--all', '-f', 'ndjson']);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

describe('export of a re-crawled archive, imported', () => {
  let imported: string;

  beforeAll(async () => {
    const warc = await exportAndImport('--warc', 'site');
    imported = tmp.path('imported.sqlite');
    const run = await execCli(['import', warc, '--db', imported, '-q']);
    expect(run.code, run.stderr).toBe(0);
  });

  it('keeps each capture in its crawl, and the 304s as revalidations', () => {
    expect(readArchive(imported, CAPTURES)).toEqual(readArchive(original, CAPTURES));
  });

  it('keeps the crawls, in order, from the times they started', () => {
    const crawls = readArchive<{ crawl: number; started_at: string }>(imported, CRAWLS);
    expect(crawls).toEqual(readArchive(original, CRAWLS));
  });

  it('so diff tells the same changes', async () => {
    const expected = await diffRows(original);
    expect(expected.length).toBeGreaterThan(0);
    expect(await diffRows(imported)).toEqual(expected);
    expect(readArchive(imported, 'SELECT * FROM changes ORDER BY url')).toEqual(
      readArchive(original, 'SELECT * FROM changes ORDER BY url'),
    );
  });

  it('adds no crawl when the same WARC is imported again', async () => {
    // The import is a run of its own, as every import is; the crawls it names are those imported before.
    const crawlRuns = "SELECT count(*) AS runs, max(crawl) AS crawls FROM run WHERE json_type(options, '$.import.crawl') IS NOT NULL";
    const before = readArchive(imported, crawlRuns);
    expect(before).toEqual([{ runs: 2, crawls: 2 }]);
    const again = await execCli(['import', tmp.path('site.warc.gz'), '--db', imported, '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(readArchive(imported, crawlRuns)).toEqual(before);
    expect(readArchive(imported, 'SELECT max(crawl) AS crawls FROM run')).toEqual([{ crawls: 2 }]);
    expect(readArchive(imported, CAPTURES)).toEqual(readArchive(original, CAPTURES));
  });
});

describe('a WACZ export of a re-crawled archive', () => {
  it('holds a WARC that keeps the crawls and revalidations too', async () => {
    const wacz = await exportAndImport('--wacz', 'site');
    const entry = readZip(readFileSync(wacz)).find((one) => /^archive\/.*\.warc\.gz$/.test(one.name));
    expect(entry).toBeDefined();
    const warc = tmp.path('from-wacz.warc.gz');
    writeFileSync(warc, entry!.data());
    const imported = tmp.path('from-wacz.sqlite');
    const run = await execCli(['import', warc, '--db', imported, '-q']);
    expect(run.code, run.stderr).toBe(0);
    expect(readArchive(imported, CAPTURES)).toEqual(readArchive(original, CAPTURES));
    expect(await diffRows(imported)).toEqual(await diffRows(original));
  });
});
