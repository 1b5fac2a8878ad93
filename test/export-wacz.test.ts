import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { EXPORT_CRAWL_FLAGS, startExportSite } from './support/export-site.js';
import type { TestServer } from './support/test-server.js';
import { readWarc, type ReadRecord } from './support/warc-read.js';
import { readZip, type ZipEntry } from './support/zip-read.js';

// A WACZ 1.1.1 package as py-wacz lays it out: the WARC stored, its index,
// the pages, and a datapackage.json whose hashes verify.

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
const waczPath = tmp.path('site.wacz');
let zip: Buffer;
let entries: ZipEntry[];
let records: ReadRecord[];

const entry = (name: string) => entries.find((e) => e.name === name)!;
/** Info-ZIP's unzip (Debian `unzip`): a reader that shares no code with the writer or with test/support. */
const UNZIP = ['/usr/bin/unzip', '/bin/unzip'].find((path) => existsSync(path));
if (!UNZIP) console.log('export-wacz: skipping the check with an independent ZIP reader: unzip is not installed (apt-get install unzip)');
const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const jsonLines = (name: string) =>
  entry(name)
    .data()
    .toString('utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, string>);

beforeAll(async () => {
  server = await startExportSite();
  expect((await runCli(['crawl', server.url, '--db', db, ...EXPORT_CRAWL_FLAGS])).stderr).toBe('');
  const result = await execCli(['export', db, '--wacz', waczPath, '--description', 'a test site']);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/site\.wacz\n$/);
  zip = readFileSync(waczPath);
  entries = readZip(zip);
  const warcCopy = tmp.path('extracted.warc.gz');
  writeFileSync(warcCopy, entry('archive/data.warc.gz').data());
  records = await readWarc(warcCopy);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('crawlite export --wacz', () => {
  it.skipIf(!UNZIP)('is a ZIP that Info-ZIP unzip tests without error, with the WARC stored and the rest as listed', () => {
    const tested = execFileSync(UNZIP!, ['-t', waczPath], { encoding: 'utf8', timeout: 20_000 });
    expect(tested).toMatch(/No errors detected/);
    // -Z -v: zipinfo's verbose listing, one block per entry with its compression method.
    const listing = execFileSync(UNZIP!, ['-Z', '-v', waczPath], { encoding: 'utf8', timeout: 20_000 });
    const warcBlock = listing.slice(listing.indexOf('archive/data.warc.gz'));
    expect(warcBlock).toMatch(/compression method:\s+none \(stored\)/);
    const names = execFileSync(UNZIP!, ['-Z', '-1', waczPath], { encoding: 'utf8', timeout: 20_000 }).trim().split('\n');
    expect(names.sort()).toEqual(entries.map((e) => e.name).sort());
  });

  it('holds the WARC stored (not deflated), the index, the pages and the datapackage files', () => {
    expect(entries.map((e) => e.name)).toEqual([
      'archive/data.warc.gz',
      'indexes/index.cdxj',
      'pages/pages.jsonl',
      'datapackage.json',
      'datapackage-digest.json',
    ]);
    const warc = entry('archive/data.warc.gz');
    expect(warc.method).toBe(0);
    expect(warc.compressedSize).toBe(warc.size);
    expect(records[0]!.type).toBe('warcinfo');
    expect(records[0]!.field('WARC-Filename')).toBe('data.warc.gz');
  });

  it("lists every file with a SHA-256 that verifies, and datapackage-digest.json holds datapackage.json's hash", () => {
    const datapackageBytes = entry('datapackage.json').data();
    const datapackage = JSON.parse(datapackageBytes.toString('utf8')) as Record<string, unknown>;
    expect(datapackage).toMatchObject({
      profile: 'data-package',
      wacz_version: '1.1.1',
      software: expect.stringMatching(/^crawlite /),
      description: 'a test site',
    });
    expect(datapackage.title).toBe(`crawl of ${server.url}`);
    expect(datapackage.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const resources = datapackage.resources as Array<{ name: string; path: string; hash: string; bytes: number }>;
    expect(resources.map((r) => r.path)).toEqual(['archive/data.warc.gz', 'indexes/index.cdxj', 'pages/pages.jsonl']);
    for (const resource of resources) {
      const data = entry(resource.path).data();
      expect(resource.name).toBe(resource.path.split('/').pop());
      expect(resource.hash).toBe(sha256(data));
      expect(resource.bytes).toBe(data.length);
    }
    expect(JSON.parse(entry('datapackage-digest.json').data().toString('utf8'))).toEqual({
      path: 'datapackage.json',
      hash: sha256(datapackageBytes),
    });
  });

  it("indexes the WARC inside: each line's offset, read straight out of the ZIP, is its record", async () => {
    const index = entry('indexes/index.cdxj').data().toString('utf8').trimEnd().split('\n');
    expect(index).toEqual([...index].sort());
    const captures = records.filter((r) => r.type === 'response' || r.type === 'revisit');
    expect(index).toHaveLength(captures.length);
    const warcStart = entry('archive/data.warc.gz').dataOffset;
    for (const line of index) {
      const json = JSON.parse(line.slice(line.indexOf('{'))) as { url: string; offset: string; length: string; filename: string };
      expect(json.filename).toBe('data.warc.gz');
      const [record] = await readWarc(waczPath, { start: warcStart + Number(json.offset), limit: 1 });
      expect(record!.field('WARC-Target-URI')).toBe(json.url);
      expect(record!.length).toBe(Number(json.length));
    }
  });

  it('lists the HTML pages in pages.jsonl, each in the index, redirects and errors left out', () => {
    const [header, ...pages] = jsonLines('pages/pages.jsonl');
    expect(entry('pages/pages.jsonl').data().toString('utf8').split('\n')[0]).toBe(
      '{"format":"json-pages-1.0","id":"pages","title":"All Pages"}',
    );
    expect(header).toEqual({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' });
    const urls = pages.map((page) => page.url);
    expect(urls).toContain(server.url);
    expect(urls).toContain(`${server.url}caf%C3%A9`);
    expect(urls).toContain(`${server.url}target`);
    expect(urls).not.toContain(`${server.url}moved`);
    expect(urls).not.toContain(`${server.url}binary`);
    expect(urls).not.toContain(`${server.url}missing`);
    expect(pages.find((page) => page.url === `${server.url}gbk`)!.title).toBe('你好');
    const index = entry('indexes/index.cdxj').data().toString('utf8');
    for (const page of pages) {
      expect(page.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(page.id).toBeTruthy();
      expect(index).toContain(`${page.ts.replace(/[-:T]/g, '').slice(0, 14)} {"url":${JSON.stringify(page.url)},`);
    }
  });
});
