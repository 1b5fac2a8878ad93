import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { linkedPage, pagePath } from '../support/linked-site.js';
import { startServer, type TestServer } from '../support/test-server.js';
import { readWarc } from '../support/warc-read.js';

// Merge and import write into a compact archive as a crawl does: the bytes read back are the bytes received,
// whatever mix of raw and compressed bodies the inputs held.
const N = 30;
let server: TestServer;
const tmp = tempDir();
const plain = tmp.path('plain.sqlite');

beforeAll(async () => {
  server = await startServer((_req, res, path) => {
    const links = Array.from({ length: N }, (_, i) => `<a href="${pagePath(i)}">${i}</a>`).join(' ');
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>index</title>${links}`);
    const match = /^\/p\/(\d+)$/.exec(path);
    if (match && Number(match[1]) < N)
      return res.writeHead(200, { 'content-type': 'text/html' }).end(linkedPage(Number(match[1]), N, pagePath));
    return res.writeHead(404).end('not found');
  });
  await crawl(plain);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

async function crawl(db: string, ...flags: string[]): Promise<void> {
  const run = await execCli(['crawl', server.url, '--db', db, '-c', '4', '-q', ...flags]);
  expect(run.code, run.stderr).toBe(0);
}

const path = (url: string) => new URL(url).pathname;

/** Each response's URL path and payload as `crawlite export --warc` writes it. */
async function payloads(db: string): Promise<string[][]> {
  const warc = `${db}.warc.gz`;
  const exported = await execCli(['export', db, '--warc', warc, '-q', '--force']);
  expect(exported.code, exported.stderr).toBe(0);
  return (await readWarc(warc))
    .filter((record) => record.type === 'response')
    .map((record) => [path(record.field('WARC-Target-URI')!), record.payload!.toString('hex')])
    .sort((x, y) => x[0]!.localeCompare(y[0]!));
}

const packedPages = (db: string) =>
  readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE url LIKE '%/p/%' AND length(body) < size")[0]!.n;

describe('into a compact archive', () => {
  it('merge: compact and plain shards merge into an archive whose bodies read back as received, and which stays compact', async () => {
    const shardA = tmp.path('a.sqlite');
    const shardB = tmp.path('b.sqlite');
    await crawl(shardA, '--compact', '--exclude', '/p/2[0-9]$');
    await crawl(shardB, '--exclude', '/p/1?[0-9]$');
    expect(packedPages(shardA)).toBe(20);
    expect(packedPages(shardB)).toBe(0);
    const merged = tmp.path('merged.sqlite');
    const run = await execCli(['merge', shardA, shardB, '--db', merged, '-q']);
    expect(run.code, run.stderr).toBe(0);
    // The shards' stored bytes are copied as they are: A's compressed, B's raw.
    expect(packedPages(merged)).toBe(20);
    expect(await payloads(merged)).toEqual(await payloads(plain));
    expect(readArchive(merged, "SELECT value FROM meta WHERE key = 'compact'")).toEqual([{ value: 'true' }]);
  });

  it('import: a WARC imported into a compact archive is stored compressed and exports the same payloads', async () => {
    const warc = `${plain}.warc.gz`;
    await payloads(plain);
    // A compact archive of another crawl of the site's index only, then the WARC of the whole site into it.
    const db = tmp.path('imported.sqlite');
    await crawl(db, '--compact', '--max-pages', '1');
    const run = await execCli(['import', warc, '--db', db, '-q']);
    expect(run.code, run.stderr).toBe(0);
    expect(packedPages(db)).toBe(N);
    expect(await payloads(db)).toEqual(expect.arrayContaining(await payloads(plain)));
  });
});
