import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { CDXIndexer } from 'warcio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha1Digest } from '../src/export/warc-digest.js';
import { surt } from '../src/url/index.js';
import { readArchive, tempDir } from './support/archive.js';
import { addCrawl } from './support/captures.js';
import { execCli, runCli } from './support/cli.js';
import { solidPng } from './support/png.js';
import { addScreenshot } from './support/screenshot-row.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { readWarc, type ReadRecord } from './support/warc-read.js';
import { readZip } from './support/zip-read.js';

// A browser crawl's screenshots in an export, as Browsertrix writes its own: after the capture's
// records, a `resource` record for `urn:view:<page URL>` holding the image, with its type; in the
// CDXJ as warcio's indexer lists it; not a page of pages.jsonl. A stored type that is no image type
// is left out, never written into a WARC header.

const tmp = tempDir();
const db = tmp.path('site.sqlite');
const warc = tmp.path('site.warc.gz');
const cdxj = tmp.path('site.cdxj');
const wacz = tmp.path('site.wacz');
const png = solidPng(30, 20, [1, 2, 250]);
const earlierPng = solidPng(10, 10, [250, 2, 1]);
let earlierFetchedAt: string;
let site: TestServer;
let stdout: string;
let records: ReadRecord[];
const abs = (path: string) => new URL(path, site.url).href;

beforeAll(async () => {
  site = await startServer(
    routes({
      '/': html('<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>', 'home'),
      '/a': html('a', 'A'),
      '/b': html('b', 'B'),
      '/c': html('c', 'C'),
    }),
  );
  const crawl = await runCli(['crawl', site.url, '--db', db, '-q']);
  expect(crawl.code, crawl.stderr).toBe(0);
  addScreenshot(db, abs('/a'), png);
  addScreenshot(db, abs('/b'), Buffer.from('not an image'), 'image/png\r\nWARC-Forged: yes');
  // A screenshot of /c's first capture, which a later crawl (without a browser) replaced.
  earlierFetchedAt = addScreenshot(db, abs('/c'), earlierPng);
  addCrawl(db, [{ url: abs('/c'), fetchedAt: new Date(Date.now() + 60_000).toISOString(), body: '<p>c again</p>' }]);
  const result = await execCli(['export', db, '--warc', warc, '--cdxj', cdxj, '--wacz', wacz]);
  expect(result.code, result.stderr).toBe(0);
  stdout = result.stdout;
  records = await readWarc(warc);
});

afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

describe('crawlite export with screenshots', () => {
  it("writes the screenshot as Browsertrix does: a resource record for urn:view:<URL>, the image's type, its exact bytes, after the page's response", () => {
    const [capture] = readArchive<{ fetch_url: string; fetched_at: string }>(
      db,
      'SELECT fetch_url, fetched_at FROM pages WHERE url = ?',
      abs('/a'),
    );
    const shots = records.filter(
      (record) => record.type === 'resource' && record.field('WARC-Target-URI') === `urn:view:${capture!.fetch_url}`,
    );
    expect(shots).toHaveLength(1);
    const shot = shots[0]!;
    expect(shot.field('Content-Type')).toBe('image/png');
    expect(shot.field('WARC-Date')).toBe(new Date(capture!.fetched_at).toISOString());
    expect(Buffer.compare(shot.block, png)).toBe(0);
    expect(shot.field('WARC-Payload-Digest')).toBe(sha1Digest(png));
    expect(shot.field('WARC-Block-Digest')).toBe(sha1Digest(png));
    const response = records.find((record) => record.type === 'response' && record.field('WARC-Target-URI') === capture!.fetch_url)!;
    expect(shot.field('WARC-Concurrent-To')).toBe(response.field('WARC-Record-ID'));
    expect(records.indexOf(shot)).toBeGreaterThan(records.indexOf(response));
  });

  it("writes an earlier capture's screenshot after that capture, with its date; the latest capture, which has none, is followed by none", () => {
    const urn = `urn:view:${abs('/c')}`;
    const shots = records.filter((record) => record.type === 'resource' && record.field('WARC-Target-URI') === urn);
    expect(shots).toHaveLength(1);
    expect(shots[0]!.field('WARC-Date')).toBe(earlierFetchedAt);
    expect(Buffer.compare(shots[0]!.block, earlierPng)).toBe(0);
    const responses = records.filter((record) => record.type === 'response' && record.field('WARC-Target-URI') === abs('/c'));
    expect(responses.map((record) => record.field('WARC-Date'))).toEqual([earlierFetchedAt, expect.any(String)]);
    const at = records.indexOf(shots[0]!);
    expect(at).toBeGreaterThan(records.indexOf(responses[0]!));
    expect(at).toBeLessThan(records.indexOf(responses[1]!));
  });

  it('leaves out a screenshot stored with a type that is no image type, and says so', () => {
    expect(records.some((record) => record.fields.has('WARC-Forged') || record.field('WARC-Target-URI') === `urn:view:${abs('/b')}`)).toBe(
      false,
    );
    expect(stdout).toMatch(/^exported \d+ responses \(0 as revisits, 2 screenshots, 1 screenshots left out \(not an image type\)\)/);
  });

  it("indexes it in the CDXJ as cdxj-indexer does (key the urn's surt, url the urn, mime the image's, no status), line for line", async () => {
    const text = readFileSync(cdxj, 'utf8');
    const line = text.split('\n').find((row) => row.includes('"url":"urn:view:'))!;
    const urn = `urn:view:${abs('/a')}`;
    // Python's surt keeps a URI without a host as it is, lower-cased (test/fixtures/surt-keys.json has urn:view: rows).
    expect(line.startsWith(`${urn.toLowerCase()} `)).toBe(true);
    const json = JSON.parse(line.slice(line.indexOf('{'))) as Record<string, string>;
    expect(json).toMatchObject({ url: urn, mime: 'image/png', digest: sha1Digest(png).slice('sha1:'.length) });
    expect(json.status).toBeUndefined();
    const indexer = new CDXIndexer({ format: 'cdxj' });
    const theirs: string[] = [];
    for await (const result of indexer.iterIndex([{ filename: 'site.warc.gz', reader: createReadStream(warc) }])) {
      const row = indexer.serializeCDXJ(result).trimEnd();
      theirs.push(`${surt(result.url as string)}${row.slice(row.indexOf(' '))}`);
    }
    expect(text.trimEnd().split('\n')).toEqual(theirs.sort());
  });

  it('the WACZ holds the same record and index line, and lists no screenshot among its pages', async () => {
    const entries = readZip(readFileSync(wacz));
    const entry = (name: string) => entries.find((e) => e.name === name)!.data();
    const index = entry('indexes/index.cdxj').toString('utf8');
    expect(index).toContain(`"url":"urn:view:${abs('/a')}","mime":"image/png"`);
    const pages = entry('pages/pages.jsonl').toString('utf8');
    expect(pages).not.toContain('urn:');
    const inner = tmp.path('inner.warc.gz');
    writeFileSync(inner, entry('archive/data.warc.gz'));
    const shot = (await readWarc(inner)).find((record) => record.type === 'resource')!;
    expect(Buffer.compare(shot.block, png)).toBe(0);
  });
});
