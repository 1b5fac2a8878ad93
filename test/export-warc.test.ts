import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sha1Digest } from '../src/export/warc-digest.js';
import { readArchive, tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { EXPORT_CRAWL_FLAGS, GZIP_PAGE, startExportSite } from './support/export-site.js';
import type { TestServer } from './support/test-server.js';
import { readWarc, type ReadRecord } from './support/warc-read.js';

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
const warcPath = tmp.path('site.warc.gz');
let records: ReadRecord[];

interface PageRow {
  url: string;
  fetch_url: string;
  status: number;
  body: Buffer;
  fetched_at: string;
  content_type: string | null;
}
let pages: PageRow[];

beforeAll(async () => {
  server = await startExportSite();
  const crawl = await runCli(['crawl', server.url, '--db', db, ...EXPORT_CRAWL_FLAGS]);
  expect(crawl.stderr).toBe('');
  const exported = await execCli([
    'export',
    db,
    '--warc',
    warcPath,
    '--include-failed',
    '--operator',
    'Jane Doe',
    '--description',
    'a test site',
  ]);
  expect(exported).toMatchObject({ code: 0, stderr: '' });
  expect(exported.stdout).toMatch(/^exported \d+ responses \(1 as revisits, 1 failed URLs\), WARC .*site\.warc\.gz\n$/);
  // warcio warns (and reads on) when a record's length is wrong.
  const warn = vi.spyOn(console, 'warn');
  records = await readWarc(warcPath);
  expect(warn).not.toHaveBeenCalled();
  warn.mockRestore();
  pages = readArchive<PageRow>(db, 'SELECT url, fetch_url, status, body, fetched_at, content_type FROM pages ORDER BY url');
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const byId = (id: string | undefined) => records.find((record) => record.field('WARC-Record-ID') === id);
const capture = (path: string) =>
  records.find(
    (record) => ['response', 'revisit'].includes(record.type) && record.field('WARC-Target-URI') === new URL(path, server.url).href,
  )!;
const httpHeader = (record: ReadRecord, name: string) => record.httpHeaders!.find(([key]) => key.toLowerCase() === name)?.[1];

describe('crawlite export --warc', () => {
  it('writes a warcinfo record first: software, format, roots, options, robots policy, operator, description', () => {
    const info = records[0]!;
    expect(info.type).toBe('warcinfo');
    expect(info.field('WARC-Filename')).toBe('site.warc.gz');
    expect(info.field('Content-Type')).toBe('application/warc-fields');
    const text = info.block.toString('utf8');
    expect(text).toContain('software: crawlite/');
    expect(text).toContain('format: WARC File Format 1.1\r\n');
    expect(text).toContain(`crawlite-roots: ${server.url}\r\n`);
    expect(text).toContain('robots: obey\r\n');
    expect(text).toContain('operator: Jane Doe\r\n');
    expect(text).toContain('description: a test site\r\n');
    expect(text).toMatch(/crawlite-options: \{.*"maxTries":1/);
    expect(records.filter((record) => record.type === 'warcinfo')).toHaveLength(1);
  });

  it('writes WARC/1.1 records that warcio parses, each with a uuid record ID and a verifying block digest', () => {
    expect(records.length).toBeGreaterThan(30);
    for (const record of records) {
      expect(record.field('WARC-Record-ID')).toMatch(/^<urn:uuid:[0-9a-f-]{36}>$/);
      expect(record.field('WARC-Block-Digest'), record.type).toBe(sha1Digest(record.block));
      expect(Number(record.field('Content-Length'))).toBe(record.block.length);
    }
  });

  it('writes a response (or revisit) and a request for every stored response, of every kind and status, linked both ways', () => {
    const captures = records.filter((record) => record.type === 'response' || record.type === 'revisit');
    expect(captures.map((record) => record.field('WARC-Target-URI'))).toEqual(pages.map((page) => page.fetch_url));
    expect(new Set(pages.map((page) => page.status))).toEqual(new Set([200, 301, 404]));
    for (const response of captures) {
      const request = byId(response.field('WARC-Concurrent-To'))!;
      expect(request.type).toBe('request');
      expect(request.field('WARC-Concurrent-To')).toBe(response.field('WARC-Record-ID'));
      expect(request.field('WARC-Target-URI')).toBe(response.field('WARC-Target-URI'));
      expect(request.httpHead!.toString('latin1')).toMatch(/^GET \/\S* HTTP\/1\.1\r\n/);
    }
    expect(records.filter((record) => record.type === 'request')).toHaveLength(pages.length);
  });

  it('targets the URL as requested and dates each record when it was fetched, to the millisecond', () => {
    const cafe = capture('/caf%C3%A9');
    expect(cafe.field('WARC-Target-URI')).toBe(`${server.url}caf%C3%A9`);
    for (const page of pages) {
      const record = records.find((r) => r.type !== 'request' && r.type !== 'metadata' && r.field('WARC-Target-URI') === page.fetch_url)!;
      expect(record.field('WARC-Date')).toBe(new Date(page.fetched_at).toISOString());
      expect(record.field('WARC-Date')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('carries every stored body byte for byte as the payload, with its SHA-1 payload digest', () => {
    for (const page of pages) {
      let record = capture(new URL(page.fetch_url).pathname);
      if (record.type === 'revisit') record = capture(new URL(record.field('WARC-Refers-To-Target-URI')!).pathname);
      expect(record.payload!.equals(page.body), page.url).toBe(true);
      expect(record.field('WARC-Payload-Digest')).toBe(sha1Digest(page.body));
      expect(Number(httpHeader(record, 'content-length'))).toBe(page.body.length);
    }
    expect(capture('/binary').payload).toEqual(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
    expect(capture('/empty').payload).toEqual(Buffer.alloc(0));
    expect(capture('/gbk').payload!.includes(Buffer.from([0xc4, 0xe3, 0xba, 0xc3]))).toBe(true);
  });

  it('describes the stored payload in the HTTP headers: codings renamed, Content-Length the payload length', () => {
    const gzip = capture('/gzip');
    expect(httpHeader(gzip, 'content-encoding')).toBeUndefined();
    expect(httpHeader(gzip, 'x-crawlite-original-content-encoding')).toBe('gzip');
    expect(httpHeader(gzip, 'content-length')).toBe(String(Buffer.byteLength(GZIP_PAGE)));
    expect(Number(httpHeader(gzip, 'x-crawlite-original-content-length'))).toBeLessThan(Buffer.byteLength(GZIP_PAGE));
    expect(gzip.payload!.toString()).toBe(GZIP_PAGE);
    expect(httpHeader(capture('/br'), 'x-crawlite-original-content-encoding')).toBe('br');
    const chunked = capture('/chunked');
    expect(httpHeader(chunked, 'transfer-encoding')).toBeUndefined();
    expect(httpHeader(chunked, 'x-crawlite-original-transfer-encoding')).toBe('chunked');
    expect(httpHeader(chunked, 'content-length')).toBe(String('part one\npart two\n'.length));
    expect(httpHeader(capture('/binary'), 'x-crawlite-original-content-length')).toBeUndefined();
  });

  it('keeps the status of redirects and errors, with their headers', () => {
    expect(capture('/moved').httpStatus).toBe(301);
    expect(httpHeader(capture('/moved'), 'location')).toBe('/target');
    expect(capture('/missing').httpStatus).toBe(404);
    expect(capture('/target').httpStatus).toBe(200);
  });

  it('writes a body identical to one already written as a revisit that refers to it', () => {
    const first = capture('/twin-a');
    const twin = capture('/twin-b');
    expect(first.type).toBe('response');
    expect(twin.type).toBe('revisit');
    expect(twin.field('WARC-Profile')).toBe('http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');
    expect(twin.field('WARC-Refers-To-Target-URI')).toBe(first.field('WARC-Target-URI'));
    expect(twin.field('WARC-Refers-To-Date')).toBe(first.field('WARC-Date'));
    expect(twin.field('WARC-Refers-To')).toBe(first.field('WARC-Record-ID'));
    expect(twin.field('WARC-Payload-Digest')).toBe(first.field('WARC-Payload-Digest'));
    expect(twin.payload).toEqual(Buffer.alloc(0));
    expect(twin.httpStatus).toBe(200);
    expect(records.filter((record) => record.type === 'revisit')).toHaveLength(1);
  });

  it("writes a metadata record per HTML page with its outlinks, concurrent to the page's response", () => {
    const root = capture('/');
    const metadata = records.filter(
      (record) => record.type === 'metadata' && record.field('WARC-Concurrent-To') === root.field('WARC-Record-ID'),
    );
    expect(metadata).toHaveLength(1);
    const lines = metadata[0]!.block.toString('utf8').split('\r\n').filter(Boolean);
    expect(lines).toContain(`outlink: ${server.url}gzip link`);
    expect(lines).toContain(`outlink: ${server.url}caf%C3%A9 link`);
    expect(lines.every((line) => /^outlink: http:\/\/\S+ [a-z]+$/.test(line))).toBe(true);
    expect(metadata[0]!.field('Content-Type')).toBe('application/warc-fields');
    // Not HTML: no outlinks record.
    const binary = capture('/binary');
    expect(
      records.some((record) => record.type === 'metadata' && record.field('WARC-Concurrent-To') === binary.field('WARC-Record-ID')),
    ).toBe(false);
  });

  it('with --include-failed, writes URLs that failed without a response as metadata records with the error', () => {
    const failed = records.filter((record) => record.type === 'metadata' && record.field('WARC-Target-URI') === `${server.url}broken`);
    expect(failed).toHaveLength(1);
    const text = failed[0]!.block.toString('utf8');
    expect(text).toContain('crawlite-state: failed\r\n');
    expect(text).toMatch(/crawlite-error: \S.*\r\n/);
  });
});
